/** The gRPC client, loaded when a function is first called over gRPC: a run that calls none does not load gRPC. */
export const loadGrpc = () => import("./grpc.js");
