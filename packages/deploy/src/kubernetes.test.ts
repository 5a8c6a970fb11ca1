import { resolve } from "node:path";
import { EDGE_ERRORS_NAME } from "./edge-errors-backend";
import { FLEET_JOBS, FLEET_SERVICES, kubernetesProbeAction, kubernetesReadinessAction, scrapeAnnotations, workloadName } from "./fleet-services";
import { REPO_ROOT } from "./generated-files";
import { ingressObjects } from "./ingress";
import { type KubeObject, parseImage, renderKustomization } from "./kustomize";

// Renders each overlay of infra/k8s (reading the committed files, nothing else) and checks it
// against the Kubernetes API schemas and the fleet table.

/** The kubernetes-models class of an object's apiVersion and kind. */
function modelOf(object: KubeObject): new (data: unknown) => { validate(): void } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(`kubernetes-models/${object.apiVersion}/${object.kind}`) as Record<string, new (data: unknown) => { validate(): void }>;
  const model = module[object.kind];
  if (model === undefined) throw new Error(`kubernetes-models has no ${object.apiVersion} ${object.kind}`);
  return model;
}

const OVERLAYS = {
  development: { namespace: "mailstop-dev", image: "mailstop:local", host: "mailstop.localtest.me", secret: true },
  production: { namespace: "mailstop", image: "registry.example.com/mailstop:0.1.0", host: "mailstop.example.com", secret: false },
};

const HPA_SERVICES = ["api", "waiter", "parser"];

describe.each(Object.entries(OVERLAYS))("infra/k8s/overlays/%s", (overlay, expected) => {
  const objects = renderKustomization(resolve(REPO_ROOT, "infra/k8s/overlays", overlay));
  const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name) as any;
  /** The pods that run mailstop's image (the edge's error backend runs nginx). */
  const pods = () => objects.filter((o) => (o.kind === "Deployment" || o.kind === "Job") && o.metadata.name !== EDGE_ERRORS_NAME).map((o: any) => o.spec.template);

  it("validates every object against the Kubernetes API schemas", () => {
    expect(objects.length).toBeGreaterThan(15);
    for (const object of objects) {
      const Model = modelOf(object);
      expect(() => new Model(object).validate()).not.toThrow();
    }
    // The schemas do reject a wrong type (they do not reject unknown fields: the tests below
    // pin the fields that matter by name).
    const deployment = find("Deployment", "mailstop-api");
    expect(() => new (modelOf(deployment))({ ...deployment, spec: { ...deployment.spec, replicas: "2" } }).validate()).toThrow(/replicas/);
  });

  it("puts every object in the overlay's namespace, which it creates", () => {
    expect(find("Namespace", expected.namespace)).toBeDefined();
    for (const object of objects.filter((o) => o.kind !== "Namespace")) expect(`${object.kind}/${object.metadata.name} in ${object.metadata.namespace}`).toBe(`${object.kind}/${object.metadata.name} in ${expected.namespace}`);
  });

  it.each(FLEET_SERVICES.map((s) => [s.name, s] as const))("runs %s as one Deployment with the table's arguments, ports and probes", (_name, service) => {
    const deployment = find("Deployment", workloadName(service.name));
    expect(deployment).toBeDefined();
    const [container, ...others] = deployment.spec.template.spec.containers;
    expect(others).toEqual([]);
    expect(container.command).toBeUndefined();
    expect(container.args).toEqual(service.args);
    expect(container.ports ?? []).toEqual(service.ports.map((p) => ({ name: p.name, containerPort: p.port })));
    const actions = { startupProbe: kubernetesProbeAction(service), livenessProbe: kubernetesProbeAction(service), readinessProbe: kubernetesReadinessAction(service) };
    for (const [probe, action] of Object.entries(actions)) expect(container[probe]).toMatchObject(action);
    expect(deployment.spec.template.metadata.annotations).toMatchObject(scrapeAnnotations(service));
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(service.replicas);
    if (overlay === "development") expect(deployment.spec.replicas).toBe(service.replicas);
    // The selector picks this Deployment's pods and no other's.
    expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
    for (const other of objects.filter((o: any) => o.kind === "Deployment" && o !== deployment) as any[]) {
      expect(other.spec.template.metadata.labels).not.toMatchObject(deployment.spec.selector.matchLabels);
    }
  });

  it("runs the table's migrate as a Job", () => {
    const job = find("Job", "mailstop-migrate");
    expect(job.spec.template.spec.containers.map((c: any) => c.args)).toEqual([FLEET_JOBS.migrate.args]);
  });

  it("runs the overlay's image, as a non-root user, with the shared configuration", () => {
    for (const template of pods()) {
      expect(template.spec.securityContext.runAsNonRoot).toBe(true);
      for (const container of template.spec.containers) {
        expect(container.image).toBe(expected.image);
        expect(container.envFrom).toEqual([{ configMapRef: { name: "mailstop-config" } }, { secretRef: { name: "mailstop-secrets" } }]);
        expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
      }
    }
    expect(find("ConfigMap", "mailstop-config").data.MAILSTOP_HOST).toBe("0.0.0.0");
    expect(find("Secret", "mailstop-secrets") !== undefined).toBe(expected.secret);
    expect(parseImage(expected.image).tag).toBeDefined();
  });

  it("scales api, waiter and parser with an HPA from their Deployment's replicas", () => {
    const hpas = objects.filter((o) => o.kind === "HorizontalPodAutoscaler") as any[];
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(HPA_SERVICES.map((s) => workloadName(s as never)).sort());
    for (const hpa of hpas) {
      const deployment = find("Deployment", hpa.spec.scaleTargetRef.name);
      expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "Deployment", name: deployment.metadata.name });
      expect(hpa.spec.minReplicas).toBe(deployment.spec.replicas);
      expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
    }
  });

  it("guards every service with a PodDisruptionBudget on its pods", () => {
    for (const service of FLEET_SERVICES) {
      const pdb = find("PodDisruptionBudget", workloadName(service.name));
      expect(pdb.spec.selector).toEqual(find("Deployment", workloadName(service.name)).spec.selector);
    }
  });

  it("exposes api and waiter inside the cluster, and SMTP 25 and 587 through a LoadBalancer", () => {
    for (const name of ["api", "waiter"] as const) {
      const service = find("Service", workloadName(name));
      expect(service.spec.type).toBe("ClusterIP");
      expect(service.spec.ports).toEqual([{ name: "http", port: 80, targetPort: "http" }]);
      expect(find("Deployment", workloadName(name)).spec.template.metadata.labels).toMatchObject(service.spec.selector);
    }
    const smtp = find("Service", workloadName("smtp-edge"));
    expect(smtp.spec.type).toBe("LoadBalancer");
    expect(smtp.spec.ports.map((p: any) => [p.port, p.targetPort])).toEqual([
      [25, "smtp"],
      [587, "capture"],
    ]);
    expect(find("Deployment", workloadName("smtp-edge")).spec.template.metadata.labels).toMatchObject(smtp.spec.selector);
  });

  it("runs the Ingress's error backend: nginx, non-root, read-only, with the generated server, behind the Service the Ingress names", () => {
    const deployment = find("Deployment", EDGE_ERRORS_NAME);
    const pod = deployment.spec.template.spec;
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    const [container] = pod.containers;
    expect(container.image).toMatch(/^nginxinc\/nginx-unprivileged:\d+\.\d+/);
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    expect(container.volumeMounts).toContainEqual(expect.objectContaining({ mountPath: "/etc/nginx/conf.d/default.conf", subPath: "default.conf" }));
    expect(find("ConfigMap", EDGE_ERRORS_NAME).data["default.conf"]).toContain("listen 8080;");
    const service = find("Service", EDGE_ERRORS_NAME);
    expect(service.spec.ports).toEqual([{ name: "http", port: 80, targetPort: "http" }]);
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    for (const ingress of objects.filter((o) => o.kind === "Ingress") as any[]) {
      expect(ingress.metadata.annotations["nginx.ingress.kubernetes.io/default-backend"]).toBe(EDGE_ERRORS_NAME);
    }
  });

  it("routes the edge with the generated Ingress, on the overlay's host, to Services that exist", () => {
    const ingresses = objects.filter((o) => o.kind === "Ingress") as any[];
    const generated = ingressObjects() as any[];
    expect(ingresses.map((i) => i.metadata.name)).toEqual(generated.map((g) => g.metadata.name));
    for (const [index, ingress] of ingresses.entries()) {
      const source = generated[index];
      expect(ingress.metadata.annotations).toMatchObject(source.metadata.annotations);
      expect(ingress.spec.rules).toEqual(source.spec.rules.map((rule: any) => ({ host: expected.host, ...rule })));
      for (const path of ingress.spec.rules[0].http.paths) {
        const service = find("Service", path.backend.service.name);
        expect(service.spec.ports.map((p: any) => p.name)).toContain(path.backend.service.port.name);
      }
    }
  });
});
