import Foundation
import Instrumentation
import Logging
import Synchronization
import Tracing

/// A tracer that writes each span to the log as it ends: its name, trace, id, parent, duration and attributes. What
/// the example uses when no collector is named.
final class LogTracer: Tracer {
  let logger: Logger
  private let nextID = Atomic<UInt64>(1)

  init(logger: Logger) {
    self.logger = logger
  }

  func startSpan<Instant: TracerInstant>(
    _ operationName: String,
    context: @autoclosure () -> ServiceContext,
    ofKind kind: SpanKind,
    at instant: @autoclosure () -> Instant,
    function: String,
    file fileID: String,
    line: UInt
  ) -> LogSpan {
    var context = context()
    let parent = context.logSpanIDs
    let id = nextID.add(1, ordering: .relaxed).newValue
    let ids = LogSpanIDs(trace: parent?.trace ?? id, span: id)
    context.logSpanIDs = ids
    return LogSpan(
      name: operationName, context: context, ids: ids, parent: parent?.span, start: instant().nanosecondsSinceEpoch,
      logger: logger)
  }

  func activeSpan(identifiedBy context: ServiceContext) -> LogSpan? { nil }

  func forceFlush() {}

  func extract<Carrier, Extract: Extractor>(
    _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
  )
  where Extract.Carrier == Carrier {}

  func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
  where Inject.Carrier == Carrier {}
}

/// The trace and span ids a ``LogTracer`` keeps in a context.
struct LogSpanIDs: Sendable {
  let trace: UInt64
  let span: UInt64
}

private enum LogSpanIDsKey: ServiceContextKey {
  typealias Value = LogSpanIDs
}

extension ServiceContext {
  var logSpanIDs: LogSpanIDs? {
    get { self[LogSpanIDsKey.self] }
    set { self[LogSpanIDsKey.self] = newValue }
  }
}

/// A span of a ``LogTracer``: written to the log when it ends.
final class LogSpan: Tracing.Span {
  let context: ServiceContext
  private let ids: LogSpanIDs
  private let parent: UInt64?
  private let start: UInt64
  private let logger: Logger
  private let state: Mutex<State>

  private struct State {
    var name: String
    var attributes: SpanAttributes = [:]
    var status: SpanStatus?
    var links = 0
    var ended = false
  }

  init(name: String, context: ServiceContext, ids: LogSpanIDs, parent: UInt64?, start: UInt64, logger: Logger) {
    self.context = context
    self.ids = ids
    self.parent = parent
    self.start = start
    self.logger = logger
    self.state = Mutex(State(name: name))
  }

  var operationName: String {
    get { state.withLock { $0.name } }
    set { state.withLock { $0.name = newValue } }
  }

  var attributes: SpanAttributes {
    get { state.withLock { $0.attributes } }
    set { state.withLock { $0.attributes = newValue } }
  }

  var isRecording: Bool { state.withLock { !$0.ended } }

  func setStatus(_ status: SpanStatus) { state.withLock { $0.status = status } }

  func addEvent(_ event: SpanEvent) {}

  func recordError<Instant: TracerInstant>(
    _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
  ) {
    state.withLock { $0.attributes["error"] = "\(error)" }
  }

  func addLink(_ link: SpanLink) { state.withLock { $0.links += 1 } }

  func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
    let ended = state.withLock { state -> State? in
      guard !state.ended else { return nil }
      state.ended = true
      return state
    }
    guard let ended else { return }
    var fields: [String] = []
    // SpanAttributes is not a Sequence: its own forEach is the only way through it.
    // swift-format-ignore: ReplaceForEachWithForLoop
    ended.attributes.forEach { name, value in fields.append("\(name)=\(value)") }
    let micros = (instant().nanosecondsSinceEpoch - start) / 1_000
    logger.info(
      "span \(ended.name) trace=\(ids.trace) id=\(ids.span) parent=\(parent.map(String.init) ?? "-") \(micros) us \(ended.status?.code == .error ? "error " : "")links=\(ended.links) \(fields.sorted().joined(separator: " "))"
    )
  }
}
