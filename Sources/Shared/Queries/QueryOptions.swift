/// How a query caches, refetches, retries and forgets its value.
public struct QueryOptions: Sendable {
  /// How long a fetched value counts as fresh. A holder that appears while the value is fresh uses it without
  /// fetching; once it is stale, the next holder shows it and refetches in the background. The default, zero,
  /// makes every value stale as soon as it arrives.
  ///
  /// For a paginated query a refetch fetches every loaded page, and page fetches wait for it: with a `staleTime`
  /// of zero, each new holder refetches all pages, and a ``Shared/fetchNextPage()`` asked for meanwhile waits for
  /// them. Give paginated queries a `staleTime` that fits how often their pages change.
  public var staleTime: Duration
  /// How long a query with no holders, iterations or running fetch keeps its value before it is removed. The
  /// default is five minutes.
  public var gcTime: Duration
  /// How failed fetches are retried. The default retries 3 times, waiting 1 s, 2 s, then 4 s (at most 30 s).
  public var retry: RetryPolicy
  /// The clock for staleness, garbage collection and retry waits; a ``ManualClock`` in tests.
  public var clock: any Clock<Duration>

  /// Options.
  ///
  /// - Parameters:
  ///   - staleTime: How long a fetched value counts as fresh.
  ///   - gcTime: How long an unused query keeps its value; must be positive.
  ///   - retry: How failed fetches are retried.
  ///   - clock: The clock for all of these.
  public init(
    staleTime: Duration = .zero,
    gcTime: Duration = .seconds(300),
    retry: RetryPolicy = QueryOptions.defaultRetry,
    clock: any Clock<Duration> = ContinuousClock()
  ) {
    precondition(staleTime >= .zero, "A query's staleTime cannot be negative: \(staleTime)")
    precondition(gcTime > .zero, "A query's gcTime must be positive: \(gcTime)")
    self.staleTime = staleTime
    self.gcTime = gcTime
    self.retry = retry
    self.clock = clock
  }

  /// Three retries with exponential backoff from 1 s, capped at 30 s.
  public static var defaultRetry: RetryPolicy {
    .exponential(retries: 3, initial: .seconds(1), multiplier: 2, maxDelay: .seconds(30))
  }
}
