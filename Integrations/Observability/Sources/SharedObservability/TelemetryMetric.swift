/// The metrics ``StoreTelemetry`` reports; each name follows its prefix (`shared_fetches_total`).
public enum TelemetryMetric: String, Sendable, CaseIterable {
  /// Counter: fetches started. Dimension `key`.
  case fetchesStarted = "fetches_started_total"
  /// Counter: fetches ended. Dimensions `key`, `outcome` (`success`, `failure`, `cancelled`).
  case fetches = "fetches_total"
  /// Timer (recorded in nanoseconds; a Prometheus export shows seconds): how long fetches took, retries included. Dimensions `key`, `outcome`.
  case fetchDuration = "fetch_duration_seconds"
  /// Counter: retried attempts of fetches. Dimension `key`.
  case fetchRetries = "fetch_retries_total"
  /// Counter: callers of `fetch`, `ensureValue` and `value` answered from the cache or not. Dimensions `key`,
  /// `result` (`hit`, `miss`).
  case cacheRequests = "cache_requests_total"
  /// Counter: queries that left the store. Dimension `reason` (`collected`, `evicted`).
  case queriesRemoved = "queries_removed_total"
  /// Gauge: the queries the store keeps.
  case queriesCached = "queries_cached"
  /// Gauge: the fetches under way.
  case queriesFetching = "queries_fetching"
  /// Counter: mutation runs ended. Dimensions `key`, `outcome`.
  case mutations = "mutations_total"
  /// Timer (recorded in nanoseconds; a Prometheus export shows seconds): how long mutation runs took. Dimensions `key`, `outcome`.
  case mutationDuration = "mutation_duration_seconds"
  /// Counter: retried attempts of mutation runs. Dimension `key`.
  case mutationRetries = "mutation_retries_total"
  /// Counter: saves of keys ended. Dimensions `key` (the key's kind: `FileStorageKey`, `PostgresKey`), `outcome`.
  case saves = "saves_total"
  /// Timer (recorded in nanoseconds; a Prometheus export shows seconds): how long saves took. Dimensions `key`, `outcome`.
  case saveDuration = "save_duration_seconds"
  /// Counter: fetches and mutation runs that waited for the network.
  case paused = "paused_total"

  /// The name of the dimension that says how it ended.
  var resultDimension: String {
    switch self {
    case .cacheRequests: "result"
    case .queriesRemoved: "reason"
    default: "outcome"
    }
  }
}
