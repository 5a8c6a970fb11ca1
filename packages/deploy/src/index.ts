export { FLEET_SERVICES, FLEET_JOBS, fleetService, workloadName, containerHealthcheck, kubernetesProbeAction, kubernetesReadinessAction, scrapeAnnotations, READINESS_PATH, METRICS_PATH, type FleetService, type FleetServiceName, type HealthCheck, type ServicePort } from "./fleet-services";
export { EDGE_ROUTES, LONG_LIVED_TIMEOUT_S, routeOf, type EdgeRoute, type EdgeUpstream } from "./edge-routes";
export { startFleet, findExecutable, mailstopBin, type Fleet, type FleetOptions, type FleetProcess } from "./fleet";
export type { ProcessExit } from "./managed-process";
export { freePort, httpOk, tcpAnswers } from "./probes";
export { SmtpReplyReader, readReplies, type SmtpReply } from "./smtp-replies";
