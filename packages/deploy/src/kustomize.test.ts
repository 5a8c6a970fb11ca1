import { type Source, parseImage, renderKustomization } from "./kustomize";

/** An in-memory tree of files; directories are the prefixes of its paths. */
function memory(files: Record<string, string>): Source {
  return {
    read: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`no file ${path}`);
      return text;
    },
    isDirectory: (path) => Object.keys(files).some((file) => file.startsWith(`${path}/`)),
  };
}

const DEPLOYMENT = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: registry:5000/web:1.0
          env:
            - {name: A, value: "1"}
        - name: sidecar
          image: busybox
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports: [{port: 80}]
`;

const base = (kustomization: string, extra: Record<string, string> = {}) =>
  memory({ "/k/base/kustomization.yaml": "resources: [web.yaml]\n", "/k/base/web.yaml": DEPLOYMENT, "/k/overlay/kustomization.yaml": kustomization, ...extra });

describe("renderKustomization", () => {
  it("renders resources of a base directory, then sets the namespace on namespaced objects", () => {
    const objects = renderKustomization("/k/overlay", base("namespace: shop\nresources: [../base, ns.yaml]\n", { "/k/overlay/ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n" }));
    expect(objects.map((o) => [o.kind, o.metadata.namespace])).toEqual([
      ["Deployment", "shop"],
      ["Service", "shop"],
      ["Namespace", undefined],
    ]);
  });

  it("replaces an image by name, keeping other containers", () => {
    const [deployment] = renderKustomization("/k/overlay", base("resources: [../base]\nimages:\n  - {name: registry:5000/web, newName: ghcr.io/acme/web, newTag: '2.0'}\n"));
    expect((deployment as any).spec.template.spec.containers.map((c: any) => c.image)).toEqual(["ghcr.io/acme/web:2.0", "busybox"]);
    expect(parseImage("registry:5000/web:1.0@sha256:ab")).toEqual({ name: "registry:5000/web", tag: "1.0", digest: "sha256:ab" });
  });

  it("adds labels to metadata, templates and selectors only as asked", () => {
    const only = renderKustomization("/k/overlay", base("resources: [../base]\nlabels:\n  - pairs: {team: a}\n"));
    expect((only[0] as any).spec.template.metadata.labels).toEqual({ app: "web" });
    const all = renderKustomization("/k/overlay", base("resources: [../base]\nlabels:\n  - pairs: {team: a}\n    includeSelectors: true\n"));
    expect((all[0] as any).metadata.labels).toEqual({ team: "a" });
    expect((all[0] as any).spec.selector.matchLabels).toEqual({ app: "web", team: "a" });
    expect((all[0] as any).spec.template.metadata.labels).toEqual({ app: "web", team: "a" });
    expect((all[1] as any).spec.selector).toEqual({ app: "web", team: "a" });
  });

  it("applies a strategic-merge patch: named list items merged, null deletes, $patch: delete removes", () => {
    const objects = renderKustomization(
      "/k/overlay",
      base("resources: [../base]\npatches:\n  - path: p.yaml\n  - path: d.yaml\n", {
        "/k/overlay/p.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n        - name: web\n          env: [{name: B, value: '2'}]\n        - name: sidecar\n          image: null\n",
        "/k/overlay/d.yaml": "$patch: delete\napiVersion: v1\nkind: Service\nmetadata: {name: web}\n",
      }),
    );
    expect(objects.map((o) => o.kind)).toEqual(["Deployment"]);
    const spec = (objects[0] as any).spec;
    expect(spec.replicas).toBe(3);
    expect(spec.template.spec.containers[0].env).toEqual([{ name: "A", value: "1" }, { name: "B", value: "2" }]);
    expect(spec.template.spec.containers[1]).toEqual({ name: "sidecar" });
  });

  it("applies a JSON 6902 patch to every object whose target fields match as regular expressions", () => {
    const objects = renderKustomization(
      "/k/overlay",
      base("resources: [../base]\npatches:\n  - target: {kind: Deployment|Service, name: we.}\n    patch: |-\n      - {op: add, path: /metadata/annotations, value: {a~b: x}}\n      - {op: add, path: /metadata/annotations/c~1d, value: z}\n"),
    );
    for (const object of objects) expect(object.metadata.annotations).toEqual({ "a~b": "x", "c/d": "z" });
  });

  it("fails on what it does not implement, on patches that match nothing, on duplicates and on several patches in one file", () => {
    expect(() => renderKustomization("/k/overlay", base("resources: [../base]\ncommonLabels: {a: b}\n"))).toThrow(/commonLabels not supported/);
    expect(() => renderKustomization("/k/overlay", base("resources: [../base]\npatches:\n  - target: {kind: Job}\n    patch: '[{op: remove, path: /spec}]'\n"))).toThrow(/no object matches/);
    expect(() => renderKustomization("/k/overlay", base("resources: [../base]\npatches:\n  - target: {kind: Service}\n    patch: '[{op: remove, path: /spec/nothing}]'\n"))).toThrow(/does not exist/);
    expect(() => renderKustomization("/k/overlay", base("resources: [../base, ../base/web.yaml]\n"))).toThrow(/defined twice/);
    expect(() =>
      renderKustomization("/k/overlay", base("resources: [../base]\npatches: [{path: two.yaml}]\n", { "/k/overlay/two.yaml": "kind: Service\nmetadata: {name: web}\n---\nkind: Service\nmetadata: {name: web}\n" })),
    ).toThrow(/one patch per file/);
  });

  it("reads manifests as YAML 1.1, as kubectl does: an unquoted off is a boolean", () => {
    const [deployment] = renderKustomization("/k/overlay", memory({ "/k/overlay/kustomization.yaml": "resources: [a.yaml]\n", "/k/overlay/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: off}\n" }));
    expect((deployment as any).data.x).toBe(false);
  });
});
