// A Hummingbird server with the query cache in a handler, measured and traced:
//
//   GET /posts/:id   a post through the store's cache (upstream: 2 ms); `fail` fails upstream, `slow` times out
//   GET /metrics     the metrics in Prometheus's text format
//
// Metrics are exported by swift-prometheus. Traces go through swift-otel over OTLP/HTTP when
// OTEL_EXPORTER_OTLP_ENDPOINT names a collector, and otherwise to the log, one line per span.
//
//   swift run ObservabilityExample --port 8080
import Foundation
import Hummingbird
import Logging
import Metrics
import OTel
import Prometheus
import ServiceLifecycle
import SharedObservability
import SharedState
import Tracing
import UnixSignals

let arguments = CommandLine.arguments
let port = arguments.firstIndex(of: "--port").flatMap { Int(arguments[$0 + 1]) } ?? 8080
var logger = Logger(label: "ObservabilityExample")
logger.logLevel = .info

// Metrics: one Prometheus registry, read at /metrics.
let prometheus = PrometheusCollectorRegistry()
MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: prometheus))

// Traces: OTLP/HTTP to a collector if one is named, otherwise one log line per span.
var services: [any Service] = []
if let endpoint = ProcessInfo.processInfo.environment["OTEL_EXPORTER_OTLP_ENDPOINT"], !endpoint.isEmpty {
  var configuration = OTel.Configuration.default
  configuration.serviceName = "ObservabilityExample"
  configuration.traces.exporter = .otlp
  configuration.traces.otlpExporter.protocol = .httpProtobuf
  configuration.traces.batchSpanProcessor.scheduleDelay = .milliseconds(200)
  configuration.metrics.enabled = false
  configuration.logs.enabled = false
  let backend = try OTel.makeTracingBackend(configuration: configuration)
  InstrumentationSystem.bootstrap(backend.factory)
  services.append(backend.service)
  logger.info("traces go to \(endpoint) over OTLP/HTTP")
} else {
  InstrumentationSystem.bootstrap(LogTracer(logger: logger))
  logger.info("no OTEL_EXPORTER_OTLP_ENDPOINT: traces go to the log")
}

// The store, measured and traced: dimensions by the key's first part (`posts`), never by id.
let store = SharedRegistry.current.queries
store.capacity = 10_000
StoreTelemetry.attach(to: .current, keyDepth: 1)

let upstream = Upstream()
let router = Router()
router.middlewares.add(TracingMiddleware())
router.get("/posts/:id") { request, context -> Response in
  let id = try context.parameters.require("id")
  do {
    // Hummingbird does not cancel a handler when its client goes away: this does, so a fetch nobody awaits any
    // more stops retrying instead of calling the upstream again.
    let post = try await request.body.consumeWithCancellationOnInboundClose { _ in
      try await store.fetch(Upstream.query(id, upstream: upstream))
    }
    return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: post + "\n")))
  } catch let error as UpstreamError {
    return Response(status: .badGateway, body: ResponseBody(byteBuffer: ByteBuffer(string: "\(error)\n")))
  } catch is OperationTimeoutError {
    return Response(status: .gatewayTimeout, body: ResponseBody(byteBuffer: ByteBuffer(string: "timed out\n")))
  }
}
router.get("/metrics") { _, _ -> Response in
  var buffer: [UInt8] = []
  prometheus.emit(into: &buffer)
  return Response(
    status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
    body: ResponseBody(byteBuffer: ByteBuffer(bytes: buffer)))
}

let app = Application(
  router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
services.append(app)
let group = ServiceGroup(
  configuration: .init(
    services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint],
    logger: logger))
try await group.run()
