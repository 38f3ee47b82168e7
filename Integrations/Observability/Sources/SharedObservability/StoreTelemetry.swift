public import CoreMetrics
public import Instrumentation
public import SharedState
import Synchronization
public import Tracing

/// Metrics and traces of a registry's query store, its mutation runs and its saves, on swift-metrics and
/// swift-distributed-tracing: a `SharedInstrument` attached in one call.
///
/// ```swift
/// let telemetry = StoreTelemetry.attach(to: .current, keyDepth: 1)
/// ```
///
/// It reports to the metrics factory and the tracer the program bootstrapped (`MetricsSystem.bootstrap`,
/// `InstrumentationSystem.bootstrap`) unless others are given. The names, units and dimensions are listed in the
/// article <doc:MeasuringAndTracingTheStore>.
public final class StoreTelemetry: SharedInstrument {
  /// How a query's or a mutation's key becomes a metric's dimension and a span's attribute.
  public let keys: TelemetryKeys
  /// The names of the metrics: their prefix.
  public let prefix: String
  private let metrics: any MetricsFactory
  private let tracer: (any Tracer)?
  private let instruments: Mutex<[MetricKey: MetricHandle]>
  private let fetching = Atomic<Int>(0)
  /// The gauges, made once.
  private let fetchingGauge: Gauge
  private let cachedGauge: Gauge
  /// The store whose size the `queries_cached` gauge shows; set by ``attach(to:keyDepth:prefix:metrics:tracer:)``.
  private let store: Mutex<WeakStore>

  private struct WeakStore {
    weak var store: QueryStore?
  }

  /// Creates the instrument; attach it with `registry.instrument = telemetry`, or make and attach it in one call
  /// with ``attach(to:keyDepth:prefix:metrics:tracer:)``.
  ///
  /// - Parameters:
  ///   - keys: How keys become dimensions (by default, their first part).
  ///   - prefix: The prefix of every metric's name; `shared` by default.
  ///   - metrics: Where metrics go; the bootstrapped `MetricsSystem.factory` by default.
  ///   - tracer: Where spans go; the bootstrapped `InstrumentationSystem.tracer` by default, `nil` for metrics only.
  public init(
    keys: TelemetryKeys = TelemetryKeys(),
    prefix: String = "shared",
    metrics: any MetricsFactory = MetricsSystem.factory,
    tracer: (any Tracer)? = InstrumentationSystem.tracer
  ) {
    self.keys = keys
    self.prefix = prefix
    self.metrics = metrics
    self.tracer = tracer
    self.instruments = Mutex([:])
    self.store = Mutex(WeakStore())
    let name = { (metric: TelemetryMetric) in prefix.isEmpty ? metric.rawValue : "\(prefix)_\(metric.rawValue)" }
    fetchingGauge = Gauge(label: name(.queriesFetching), factory: metrics)
    cachedGauge = Gauge(label: name(.queriesCached), factory: metrics)
  }

  /// Makes a telemetry instrument and attaches it to `registry`: from then on its fetches, mutation runs and saves
  /// are measured and traced.
  ///
  /// ```swift
  /// StoreTelemetry.attach(to: .current, keyDepth: 2)
  /// ```
  ///
  /// - Parameters:
  ///   - registry: The registry measured.
  ///   - keyDepth: How many leading parts of a key become its dimension (see ``TelemetryKeys``).
  ///   - prefix: The prefix of every metric's name.
  ///   - metrics: Where metrics go; the bootstrapped factory by default.
  ///   - tracer: Where spans go; the bootstrapped tracer by default, `nil` for metrics only.
  /// - Returns: The instrument attached.
  @discardableResult
  public static func attach(
    to registry: SharedRegistry,
    keyDepth: Int = 1,
    prefix: String = "shared",
    metrics: any MetricsFactory = MetricsSystem.factory,
    tracer: (any Tracer)? = InstrumentationSystem.tracer
  ) -> StoreTelemetry {
    let telemetry = StoreTelemetry(
      keys: TelemetryKeys(depth: keyDepth), prefix: prefix, metrics: metrics, tracer: tracer)
    telemetry.store.withLock { $0.store = registry.queries }
    registry.instrument = telemetry
    telemetry.cachedGauge.record(registry.queries.count)
    return telemetry
  }

  // MARK: SharedInstrument

  /// Begins measuring `work`: counts it started, and starts its span as a child of the caller's.
  public func begin(_ work: InstrumentedWork) -> any WorkMeasurement {
    let label = work.key.map(keys.label) ?? work.keyKind
    if work.kind == .fetch {
      let now = fetching.add(1, ordering: .relaxed).newValue
      fetchingGauge.record(now)
      counter(.fetchesStarted, label).increment()
    }
    let span = tracer.map { tracer in
      let span = tracer.startSpan(
        "shared.\(work.kind.rawValue)", context: ServiceContext.current ?? .topLevel, ofKind: .internal)
      span.attributes["shared.key"] = label
      if work.kind == .save { span.attributes["shared.key.name"] = work.name }
      return span
    }
    return Measurement(telemetry: self, kind: work.kind, label: label, span: span, started: .now)
  }

  /// Counts a cache hit or miss, queries collected or evicted, or work paused for the network.
  public func record(_ event: InstrumentedEvent) {
    switch event {
    case .cacheHit(let key): counter(.cacheRequests, keys.label(key), result: "hit").increment()
    case .cacheMiss(let key): counter(.cacheRequests, keys.label(key), result: "miss").increment()
    case .queriesRemoved(let removed, let reason, let remaining):
      counter(.queriesRemoved, nil, result: reason.rawValue).increment(by: Int64(removed.count))
      cachedGauge.record(remaining)
    case .paused: counter(.paused, nil).increment()
    }
  }

  /// A fetch ended: the gauges move.
  fileprivate func fetchEnded() {
    let now = fetching.subtract(1, ordering: .relaxed).newValue
    fetchingGauge.record(now)
    if let store = store.withLock({ $0.store }) { cachedGauge.record(store.count) }
  }

  // MARK: Metric handles

  /// A metric's handle, made once per name and dimensions and kept.
  private func handle(_ key: MetricKey, make: () -> MetricHandle) -> MetricHandle {
    if let found = instruments.withLock({ $0[key] }) { return found }
    let made = make()
    return instruments.withLock { handles in
      if let raced = handles[key] { return raced }
      handles[key] = made
      return made
    }
  }

  func counter(_ metric: TelemetryMetric, _ key: String?, result: String? = nil) -> Counter {
    let id = MetricKey(metric: metric, key: key, result: result)
    guard
      case .counter(let counter) = handle(
        id, make: { .counter(Counter(label: name(metric), dimensions: id.dimensions, factory: metrics)) })
    else { preconditionFailure("\(metric) is a counter") }
    return counter
  }

  func timer(_ metric: TelemetryMetric, _ key: String?, result: String) -> CoreMetrics.Timer {
    let id = MetricKey(metric: metric, key: key, result: result)
    guard
      case .timer(let timer) = handle(
        id, make: { .timer(CoreMetrics.Timer(label: name(metric), dimensions: id.dimensions, factory: metrics)) })
    else { preconditionFailure("\(metric) is a timer") }
    return timer
  }

  /// The metric's full name: the prefix, an underscore, its name.
  public func name(_ metric: TelemetryMetric) -> String {
    prefix.isEmpty ? metric.rawValue : "\(prefix)_\(metric.rawValue)"
  }

  private struct MetricKey: Hashable {
    let metric: TelemetryMetric
    let key: String?
    let result: String?

    var dimensions: [(String, String)] {
      var dimensions: [(String, String)] = []
      if let key { dimensions.append(("key", key)) }
      if let result { dimensions.append((metric.resultDimension, result)) }
      return dimensions
    }
  }

  private enum MetricHandle: Sendable {
    case counter(Counter)
    case timer(CoreMetrics.Timer)
  }

  // MARK: A measured fetch, run or save

  private struct Measurement: WorkMeasurement {
    let telemetry: StoreTelemetry
    let kind: InstrumentedWork.Kind
    let label: String
    let span: (any Span)?
    let started: ContinuousClock.Instant

    func attempt<Success: Sendable>(_ number: Int, _ body: () async throws -> Success) async throws -> Success {
      if number > 1 {
        telemetry.counter(kind == .mutation ? .mutationRetries : .fetchRetries, label).increment()
      }
      guard let span, let tracer = telemetry.tracer, kind != .save else { return try await body() }
      let attempt = tracer.startSpan("shared.\(kind.rawValue).attempt", context: span.context, ofKind: .internal)
      attempt.attributes["shared.key"] = label
      attempt.attributes["shared.attempt"] = number
      defer { attempt.end() }
      do {
        return try await ServiceContext.withValue(attempt.context) { try await body() }
      } catch {
        if !(error is CancellationError) {
          attempt.recordError(error)
          attempt.setStatus(SpanStatus(code: .error))
        }
        throw error
      }
    }

    func joined() {
      guard let span else { return }
      span.addLink(SpanLink(context: ServiceContext.current ?? .topLevel, attributes: ["shared.joined": true]))
    }

    func ended(_ outcome: InstrumentedOutcome) {
      let duration = ContinuousClock.now - started
      let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
      switch kind {
      case .fetch:
        telemetry.counter(.fetches, label, result: outcome.name).increment()
        telemetry.timer(.fetchDuration, label, result: outcome.name).recordNanoseconds(nanoseconds)
        telemetry.fetchEnded()
      case .mutation:
        telemetry.counter(.mutations, label, result: outcome.name).increment()
        telemetry.timer(.mutationDuration, label, result: outcome.name).recordNanoseconds(nanoseconds)
      case .save:
        telemetry.counter(.saves, label, result: outcome.name).increment()
        telemetry.timer(.saveDuration, label, result: outcome.name).recordNanoseconds(nanoseconds)
      }
      guard let span else { return }
      span.attributes["shared.outcome"] = outcome.name
      if case .failure(let error) = outcome {
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error))
      }
      span.end()
    }
  }
}
