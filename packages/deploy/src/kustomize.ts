import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse, parseAllDocuments } from "yaml";

/**
 * A renderer for the subset of kustomize that infra/k8s uses, written by hand because neither
 * kubectl nor kustomize can be installed where the tests run (they are Go binaries outside
 * npm). It exists so the tests can render each overlay and validate the result; deployments
 * still use `kubectl apply -k`. Anything outside the subset is an error, never silently
 * ignored, so the manifests cannot quietly depend on a feature this renderer lacks.
 *
 * Supported: `resources` (files and directories with a kustomization), `namespace`, `images`
 * (newName, newTag, digest), `labels` (pairs, includeSelectors, includeTemplates) and `patches`
 * (one patch per file or inline, as kustomize's `patches` allows; a list is a JSON 6902 patch of
 * add/remove/replace on every object `target` matches, its fields regular expressions; a mapping
 * is a strategic-merge patch of the object of its kind and name, with lists of named items
 * merged by `name`, `null` deleting a key and `$patch: delete` deleting the object).
 * Order, as in kustomize: resources, patches, namespace, labels, images.
 */

/** A Kubernetes object as rendered. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

/** Reads a file or lists a directory; the file system by default, a map in unit tests. */
export interface Source {
  read(path: string): string;
  isDirectory(path: string): boolean;
}

export const fileSource: Source = {
  read: (path) => readFileSync(path, "utf8"),
  isDirectory: (path) => statSync(path).isDirectory(),
};

interface Target {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
}

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  labels?: { pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
  patches?: { path?: string; patch?: string; target?: Target }[];
}

const SUPPORTED = new Set(["apiVersion", "kind", "resources", "namespace", "images", "labels", "patches"]);

/** Kinds that live outside namespaces (the ones a kustomization here could meet). */
const CLUSTER_SCOPED = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "PersistentVolume", "StorageClass", "PriorityClass", "IngressClass"]);

/** Kinds whose `spec.template` is a pod template. */
const WORKLOADS = new Set(["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"]);

/**
 * YAML 1.1, as kubectl reads manifests: an unquoted `off` or `yes` is a boolean there, so a
 * string field written that way fails schema validation here as it would in the cluster.
 */
function parseDocuments(text: string, path: string): unknown[] {
  return parseAllDocuments(text, { version: "1.1" }).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${path}: ${document.errors[0]!.message}`);
    const value = document.toJS();
    return value === null || value === undefined ? [] : [value];
  });
}

/** Renders the kustomization in `directory`: every object, transformed. */
export function renderKustomization(directory: string, source: Source = fileSource): KubeObject[] {
  const path = join(directory, "kustomization.yaml");
  const kustomization = (parse(source.read(path), { version: "1.1" }) ?? {}) as Kustomization;
  const unsupported = Object.keys(kustomization).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length > 0) throw new Error(`${path}: ${unsupported.join(", ")} not supported by this renderer (see packages/deploy/src/kustomize.ts)`);

  let objects: KubeObject[] = [];
  for (const resource of kustomization.resources ?? []) {
    const target = resolve(directory, resource);
    if (source.isDirectory(target)) objects.push(...renderKustomization(target, source));
    else objects.push(...parseDocuments(source.read(target), target).map((o) => asObject(o, target)));
  }
  for (const patch of kustomization.patches ?? []) {
    const where = patch.path === undefined ? `${path} (inline patch)` : resolve(directory, patch.path);
    const text = patch.patch ?? (patch.path === undefined ? undefined : source.read(where));
    if (text === undefined) throw new Error(`${path}: a patch needs path or patch`);
    const documents = parseDocuments(text, where);
    if (documents.length !== 1) throw new Error(`${where}: one patch per file or inline patch, as kustomize's patches field reads it`);
    objects = applyPatch(objects, documents[0], patch.target, where);
  }
  if (kustomization.namespace !== undefined) {
    for (const object of objects) if (!CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = kustomization.namespace;
  }
  for (const labels of kustomization.labels ?? []) for (const object of objects) addLabels(object, labels);
  for (const image of kustomization.images ?? []) for (const object of objects) for (const container of containersOf(object)) container.image = replaceImage(container.image, image);

  const ids = new Set<string>();
  for (const object of objects) {
    const id = `${object.kind}/${object.metadata.namespace ?? ""}/${object.metadata.name}`;
    if (ids.has(id)) throw new Error(`${path}: ${object.kind} ${object.metadata.name} is defined twice`);
    ids.add(id);
  }
  return objects;
}

function asObject(value: unknown, path: string): KubeObject {
  const object = value as KubeObject;
  if (typeof object?.apiVersion !== "string" || typeof object.kind !== "string" || typeof object.metadata?.name !== "string") {
    throw new Error(`${path}: every document needs apiVersion, kind and metadata.name`);
  }
  return object;
}

/** kustomize reads each field of a target as a regular expression of the whole value. */
const fieldMatches = (pattern: string | undefined, value: string) => pattern === undefined || new RegExp(`^(?:${pattern})$`).test(value);

function matches(object: KubeObject, target: Target): boolean {
  const [group, version] = object.apiVersion.includes("/") ? object.apiVersion.split("/") : ["", object.apiVersion];
  return fieldMatches(target.kind, object.kind) && fieldMatches(target.name, object.metadata.name) && fieldMatches(target.group, group!) && fieldMatches(target.version, version!);
}

function applyPatch(objects: KubeObject[], patch: unknown, target: Target | undefined, where: string): KubeObject[] {
  if (Array.isArray(patch)) {
    if (target === undefined) throw new Error(`${where}: a JSON 6902 patch needs a target`);
    const hit = objects.filter((o) => matches(o, target));
    if (hit.length === 0) throw new Error(`${where}: no object matches the patch target ${JSON.stringify(target)}`);
    for (const object of hit) for (const operation of patch) applyOperation(object, operation, where);
    return objects;
  }
  const smp = patch as KubeObject & { $patch?: string };
  const selector: Target = target ?? { kind: smp.kind, name: smp.metadata?.name };
  const hit = objects.filter((o) => matches(o, selector));
  if (hit.length === 0) throw new Error(`${where}: no object matches the patch target ${JSON.stringify(selector)}`);
  if (smp.$patch === "delete") return objects.filter((o) => !hit.includes(o));
  for (const object of hit) mergeInto(object, smp);
  return objects;
}

/** Strategic merge, reduced to what the manifests need (see the header). */
function mergeInto(base: Record<string, unknown>, patch: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(patch)) {
    if (key === "$patch") continue;
    const current = base[key];
    if (value === null) delete base[key];
    else if (isPlainObject(value) && isPlainObject(current)) mergeInto(current, value);
    else if (Array.isArray(value) && Array.isArray(current) && [...value, ...current].every((item) => isPlainObject(item) && typeof item.name === "string")) {
      for (const item of value as Record<string, unknown>[]) {
        const existing = (current as Record<string, unknown>[]).find((c) => c.name === item.name);
        if (existing === undefined) current.push(structuredClone(item));
        else mergeInto(existing, item);
      }
    } else base[key] = structuredClone(value);
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function applyOperation(object: KubeObject, operation: { op: string; path: string; value?: unknown }, where: string): void {
  const tokens = operation.path
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  const last = tokens.pop();
  if (last === undefined) throw new Error(`${where}: a JSON 6902 path must not be the whole object`);
  let parent: any = object;
  for (const token of tokens) {
    parent = Array.isArray(parent) ? parent[Number(token)] : parent?.[token];
    if (parent === undefined || parent === null) throw new Error(`${where}: ${operation.path} does not exist`);
  }
  const exists = Array.isArray(parent) ? Number(last) < parent.length : Object.hasOwn(parent, last);
  switch (operation.op) {
    case "add":
      if (Array.isArray(parent)) parent.splice(last === "-" ? parent.length : Number(last), 0, structuredClone(operation.value));
      else parent[last] = structuredClone(operation.value);
      return;
    case "replace":
      if (!exists) throw new Error(`${where}: replace of ${operation.path}, which does not exist`);
      parent[last] = structuredClone(operation.value);
      return;
    case "remove":
      if (!exists) throw new Error(`${where}: remove of ${operation.path}, which does not exist`);
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      return;
    default:
      throw new Error(`${where}: JSON 6902 op ${operation.op} not supported by this renderer`);
  }
}

function addLabels(object: KubeObject, labels: NonNullable<Kustomization["labels"]>[number]): void {
  const add = (holder: Record<string, any>, key: string) => {
    holder[key] = { ...holder[key], ...labels.pairs };
  };
  add(object.metadata, "labels");
  const spec = object.spec as Record<string, any> | undefined;
  if (spec === undefined) return;
  const template = WORKLOADS.has(object.kind) ? spec.template : object.kind === "CronJob" ? spec.jobTemplate?.spec?.template : undefined;
  if (template !== undefined && (labels.includeTemplates || labels.includeSelectors)) {
    template.metadata ??= {};
    add(template.metadata, "labels");
  }
  if (!labels.includeSelectors) return;
  if (object.kind === "Service") add(spec, "selector");
  else if ((WORKLOADS.has(object.kind) && object.kind !== "Job") || object.kind === "PodDisruptionBudget") {
    spec.selector ??= {};
    add(spec.selector, "matchLabels");
  }
}

/** The containers and init containers of an object's pod template. */
function containersOf(object: KubeObject): { image: string }[] {
  const spec = object.spec as Record<string, any> | undefined;
  const pod = WORKLOADS.has(object.kind) ? spec?.template?.spec : object.kind === "CronJob" ? spec?.jobTemplate?.spec?.template?.spec : object.kind === "Pod" ? spec : undefined;
  if (pod === undefined) return [];
  return [...(pod.initContainers ?? []), ...(pod.containers ?? [])];
}

/** Splits `registry:5000/name:tag@digest` into its name, tag and digest. */
export function parseImage(image: string): { name: string; tag?: string; digest?: string } {
  const [reference, digest] = image.split("@");
  const slash = reference!.lastIndexOf("/");
  const colon = reference!.lastIndexOf(":");
  const tagged = colon > slash;
  return {
    name: tagged ? reference!.slice(0, colon) : reference!,
    ...(tagged ? { tag: reference!.slice(colon + 1) } : {}),
    ...(digest === undefined ? {} : { digest }),
  };
}

function replaceImage(image: string, rule: NonNullable<Kustomization["images"]>[number]): string {
  const parsed = parseImage(image);
  if (parsed.name !== rule.name) return image;
  const name = rule.newName ?? parsed.name;
  if (rule.digest !== undefined) return `${name}@${rule.digest}`;
  if (rule.newTag !== undefined) return `${name}:${rule.newTag}`;
  return `${name}${parsed.tag === undefined ? "" : `:${parsed.tag}`}${parsed.digest === undefined ? "" : `@${parsed.digest}`}`;
}
