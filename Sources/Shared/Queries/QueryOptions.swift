/// How a query caches, refetches and forgets its value, and how its fetches run.
///
/// ```swift
/// let options = QueryOptions(
///   staleTime: .seconds(30),
///   operation: .retry(.constant(retries: 2, delay: .seconds(1))).timeout(.seconds(10)))
/// ```
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
  ///
  /// One sweeper per store and clock checks each query at least every quarter of its own `gcTime` (every second for
  /// a `gcTime` of zero), and once more when a whole `gcTime` has passed since a check found it unused, so a query
  /// goes between one `gcTime` and one and a quarter after its last use, whatever the `gcTime`s of the other
  /// queries on the clock. Zero removes a query at the first check that finds it unused.
  public var gcTime: Duration
  /// How each fetch runs, exactly as an operation run does: its retries, the timeout of each attempt, and the clock.
  /// The default (``defaultOperation``) retries 3 times, waiting 1 s, 2 s, then 4 s; options built from scratch
  /// (`.timeout(.seconds(5))`) retry only as they say, so start from ``defaultOperation`` to keep its retries.
  ///
  /// Its clock also measures staleness and garbage collection: pass a ``ManualClock`` in tests.
  public var operation: OperationOptions
  /// Whether the query fetches by itself: when a holder appears, after an invalidation, on a trigger of
  /// ``QueryStore/refetchStale(on:matching:)``, and again after a fetch an invalidation overtook. `true` by default.
  ///
  /// A disabled query (a manual one) fetches only when asked to: ``Shared/refetch()``, ``QueryStore/refetch(_:)-(QueryKey)``,
  /// ``QueryStore/fetch(_:servingStale:)->Value``, ``Shared/fetchValue(servingStale:)->Success?``, ``QueryStore/ensureValue(_:)->Value``,
  /// ``QueryStore/prefetch(_:)-(Query<OperationState<Value>>)`` and page fetches still fetch. Turn it on or off for a key at run time with
  /// ``QueryStore/setEnabled(_:for:)``; turned on, a held query whose value is missing, stale or invalidated fetches
  /// at once.
  ///
  /// ```swift
  /// let options = QueryOptions(enabled: false)  // fetched only when asked to
  /// ```
  ///
  /// The options of the query that made a key's record apply to the key until it is collected.
  public var isEnabled: Bool
  /// Whether a new holder refetches the value: ``RefetchCondition/ifStale`` (the default) when it is missing,
  /// invalidated or older than ``staleTime``; ``RefetchCondition/always``; or ``RefetchCondition/never`` (a fetched
  /// value is shown whatever its age).
  ///
  /// A holder that appears while the query already has one is a new holder too: each screen that shows the query
  /// counts.
  public var refetchOnHolder: RefetchCondition
  /// Whether the held query refetches when the network comes back, as told by the store's
  /// ``QueryStore/onlineStatus``: if stale, by default.
  public var refetchOnReconnect: RefetchCondition
  /// Whether the held query refetches when the app becomes active, as told by the source given to
  /// ``QueryStore/refetch(onFocus:matching:)``: if stale, by default.
  public var refetchOnFocus: RefetchCondition
  /// How often the query refetches while held, whatever its value's age; `nil` (the default) for never.
  ///
  /// The queries of one store that share a clock and an interval share one timer, which runs while any of them is
  /// cached: a query refetches at each of its ticks, so the first refetch comes at most one interval after the
  /// query is made. A refetch joins a fetch under way instead of starting another. A disabled query does not
  /// refetch. Measured on ``OperationOptions/clock``, so a ``ManualClock`` drives it in tests.
  ///
  /// While the app is inactive, as a source followed with ``QueryStore/refetch(onFocus:matching:)`` says, a tick
  /// does not refetch the query unless ``refetchIntervalInBackground`` says so; a store that follows no focus
  /// source counts the app as active.
  public var refetchInterval: Duration?
  /// Whether the query's ``refetchInterval`` refetches it while the app is inactive too; `false` by default.
  ///
  /// ```swift
  /// let options = QueryOptions(refetchInterval: .seconds(30), refetchIntervalInBackground: true)
  /// ```
  ///
  /// The app is inactive while a focus source the store follows for the query's key
  /// (``QueryStore/refetch(onFocus:matching:)``) says so; a store that follows none counts it as active, so the
  /// interval refetches. With `false`, the interval's timer keeps its beat while the app is inactive but its ticks
  /// pass the query by; when the app is active again, its next tick refetches, and the change itself refetches
  /// first if ``refetchOnFocus`` says so (if stale, by default).
  public var refetchIntervalInBackground: Bool
  /// Whether the query's fetches wait for the network while the device is offline: the mode of ``operation``, which
  /// it reads and writes; `nil` (the default) for the store's ``QueryStore/networkMode``.
  ///
  /// ```swift
  /// let options = QueryOptions(networkMode: .offlineFirst)  // the first attempt runs offline; retries wait
  /// ```
  ///
  /// See ``NetworkMode`` and ``QueryStore/onlineStatus``.
  public var networkMode: NetworkMode? {
    get { operation.networkMode }
    set { operation.networkMode = newValue }
  }
  /// What the app attaches to the query for its own use (see ``OperationMeta``): the meta of ``operation``, which it
  /// reads and writes; empty by default.
  ///
  /// ```swift
  /// let options = QueryOptions(meta: ["screen": "feed"])
  /// ```
  ///
  /// The fetcher reads it in its ``OperationContext/meta``, the store's hooks in ``QueryHookSubject/meta``, and an
  /// inspector as text in ``InspectedQuery/meta``.
  public var meta: OperationMeta {
    get { operation.meta }
    set { operation.meta = newValue }
  }
  /// Whether the query refetches on its ``refetchInterval`` while nobody holds it as well; `false` by default.
  ///
  /// Each refetch keeps the query cached as a fetch does, so a query whose interval is shorter than its ``gcTime``
  /// stays until ``QueryStore/remove(_:)`` removes it: for a server that keeps a few values warm for every request.
  public var refetchesWhileUnheld: Bool
  /// Whether a fetched value equal to the one shown keeps the shown instance (TanStack Query's structural
  /// sharing); `true` by default.
  ///
  /// ```swift
  /// let options = QueryOptions(structuralSharing: false)  // every fetch shows the instance it returned
  /// ```
  ///
  /// When a fetch of a query whose value is `Equatable` returns a value `==` to the confirmed one, the query keeps
  /// the instance it had: an object stays the same object, an array or a string keeps its storage, and observers of
  /// the value (``Shared/select(_:)``, a derived member) are not told. The state still changes, as the fetch's end
  /// does: `isFetching` turns false and ``OperationTracking/dataUpdatedAt`` moves, so holders of the whole state
  /// hear of it, and a persisted cache records the new time. When the values differ, an array whose elements are
  /// `Identifiable` and `Equatable` keeps each element equal to the one with its `id` before (a class's instance
  /// stays the same object), and a ``PaginatedState`` whose pages are `Equatable` keeps each page equal to the one
  /// it replaces, elements of a page of such an array kept as an array's are. Other values (not `Equatable`) are
  /// always written as fetched. It applies to the values fetches write, their yields included; not to the values
  /// the program writes itself (``QueryStore/setFetchedValue(_:for:updatedAt:)``, ``Shared/withLock(_:)``).
  ///
  /// For a rule of your own (TanStack's `structuralSharing: (old, new) => …`), keep the query's value in a type of
  /// your own: its ``OperationTrackable/applySuccess(_:)`` gets the fetched value and can keep what it holds.
  public var structuralSharing: Bool

  /// Options.
  ///
  /// ```swift
  /// let options = QueryOptions(staleTime: .seconds(30), operation: QueryOptions.defaultOperation.clock(clock))
  /// ```
  ///
  /// - Parameters:
  ///   - staleTime: How long a fetched value counts as fresh.
  ///   - gcTime: How long an unused query keeps its value; zero or more.
  ///   - enabled: Whether the query fetches by itself when held, stale or invalidated (see ``isEnabled``).
  ///   - refetchOnHolder: Whether a new holder refetches the value (see ``refetchOnHolder``).
  ///   - refetchOnReconnect: Whether the held query refetches when the network comes back.
  ///   - refetchOnFocus: Whether the held query refetches when the app becomes active.
  ///   - refetchInterval: How often the held query refetches; `nil` for never. Greater than zero.
  ///   - refetchesWhileUnheld: Whether the interval refetches the query while nobody holds it too.
  ///   - refetchIntervalInBackground: Whether the interval refetches the query while the app is inactive too.
  ///   - structuralSharing: Whether a fetched value equal to the one shown keeps the shown instance, and a list its
  ///     unchanged elements (see ``structuralSharing``); `true` by default.
  ///   - networkMode: Whether the fetches wait for the network; `nil` keeps the mode of `operation` (by default
  ///     none: the store's).
  ///   - meta: What the app attaches to the query for its own use; `nil` keeps the meta of `operation` (by default
  ///     none).
  ///   - operation: How each fetch runs: retries, timeout, and the clock for these and for staleness, garbage
  ///     collection and the interval.
  public init(
    staleTime: Duration = .zero,
    gcTime: Duration = .seconds(300),
    enabled: Bool = true,
    refetchOnHolder: RefetchCondition = .ifStale,
    refetchOnReconnect: RefetchCondition = .ifStale,
    refetchOnFocus: RefetchCondition = .ifStale,
    refetchInterval: Duration? = nil,
    refetchesWhileUnheld: Bool = false,
    refetchIntervalInBackground: Bool = false,
    structuralSharing: Bool = true,
    networkMode: NetworkMode? = nil,
    meta: OperationMeta? = nil,
    operation: OperationOptions = QueryOptions.defaultOperation
  ) {
    precondition(staleTime >= .zero, "A query's staleTime cannot be negative: \(staleTime)")
    precondition(gcTime >= .zero, "A query's gcTime cannot be negative: \(gcTime)")
    if let refetchInterval {
      precondition(refetchInterval > .zero, "A query's refetchInterval must be greater than zero: \(refetchInterval)")
    }
    self.staleTime = staleTime
    self.gcTime = gcTime
    self.isEnabled = enabled
    self.refetchOnHolder = refetchOnHolder
    self.refetchOnReconnect = refetchOnReconnect
    self.refetchOnFocus = refetchOnFocus
    self.refetchInterval = refetchInterval
    self.refetchesWhileUnheld = refetchesWhileUnheld
    self.refetchIntervalInBackground = refetchIntervalInBackground
    self.structuralSharing = structuralSharing
    self.operation = operation
    if let networkMode { self.operation.networkMode = networkMode }
    if let meta { self.operation.meta = meta }
  }

  /// How a query's fetches run unless told otherwise: three retries with exponential backoff from 1 s, capped at
  /// 30 s, no timeout, on the continuous clock.
  ///
  /// ```swift
  /// let options = QueryOptions(operation: QueryOptions.defaultOperation.timeout(.seconds(10)))
  /// ```
  public static var defaultOperation: OperationOptions { sharedDefaultOperation }

  /// One value for every query made with the default operation, so that their records share one definition (see
  /// ``QueryOptions/isIdentical(to:)``).
  private static let sharedDefaultOperation = OperationOptions(
    retry: .exponential(retries: 3, initial: .seconds(1), multiplier: 2, maxDelay: .seconds(30)))
}
