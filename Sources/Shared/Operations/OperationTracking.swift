public import Foundation

/// How the operations on a value went: the status, whether a fetch is in flight, the error of the last failure,
/// the failures of the fetch under way, the attempt, and when it changed.
///
/// One small value that every operation state embeds (``OperationState``, ``MutationState``, ``PaginatedState``),
/// and that a domain type embeds to carry its own operations (see ``OperationTrackable``):
///
/// ```swift
/// struct AuthSession: OperationTrackable, Equatable {
///   var user: User?
///   var operation = OperationTracking()
///
///   mutating func applySuccess(_ user: User) { self.user = user }
/// }
/// ```
///
/// The library writes it as runs start, retry and end; read it to show progress:
///
/// ```swift
/// switch auth.operation.status {
/// case .pending: print("Signing in…")
/// case .error: print("Sign-in failed:", auth.operation.error!)
/// case .idle, .success: render(auth)
/// }
/// ```
///
/// ## Refetching is not loading
///
/// ``isFetching`` says that a fetch is in flight, a first one included. A query keeps its ``status`` while it
/// refetches in the background: a value it shows stays ``OperationStatus/success`` (an error stays
/// ``OperationStatus/error``), so a screen keeps its content and shows a small refresh indicator;
/// ``OperationStatus/pending`` means a first load, with no value yet:
///
/// ```swift
/// if post.status.isPending {
///   showSpinner()  // a first load: nothing to show yet
/// } else if post.isFetching {
///   showRefreshIndicator()  // a background refetch: the value stays on screen
/// }
/// ```
///
/// An operation's run (``Shared/run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,()->Value.Success,_,_,_,_)``,
/// ``Shared/perform(_:policy:optimistic:isolation:_:)-(_,_,_,_,()->Value.Success)``) is an action the user asked
/// for, not a refresh: it shows ``OperationStatus/pending`` while it runs, as before, and ``isFetching`` is `true`
/// exactly while the status is pending (except while the run waits for the network: ``isPaused``). The exception is a run of ``OperationPolicy/debounceCancellingPrevious(_:)``
/// (search as you type), which refreshes what a screen shows: it keeps the status, as a refetch does, and shows
/// ``isFetching``.
///
/// ## Waiting for the network
///
/// While the device is offline, a fetch or a mutation's run of ``NetworkMode/online`` (the default) waits instead
/// of starting, and so does a retry: ``isPaused`` is `true` in place of ``isFetching``, and the status stays as it
/// was (see ``QueryStore/onlineStatus``):
///
/// ```swift
/// if post.isPaused {
///   showOfflineBadge()  // waits for the network; post.status tells whether a value is shown
/// }
/// ```
///
/// While a fetch or a run retries, ``failureCount`` counts its failed attempts and ``failureReason`` holds the
/// last one's error; both go back to 0 and `nil` when a fetch starts or succeeds. ``error`` is the error of the last
/// fetch that failed for good, after its retries.
///
/// ## Three dates
///
/// ``updatedAt`` is the state's last change: it moves when a fetch starts, retries, pauses, ends or fails.
/// ``dataUpdatedAt`` is when the value shown was obtained: a successful fetch or run, or a value the program set as
/// obtained at a time (``QueryStore/setFetchedValue(_:for:updatedAt:)``, an initial or restored value); it is what
/// "3 minutes ago" under a value means. ``errorUpdatedAt`` is when the last failure for good happened. An edit in
/// place (``QueryStore/update(_:as:_:)``, a holder's `withLock`) moves none of them.
///
/// ```swift
/// if let obtained = post.dataUpdatedAt { print("fetched at", obtained) }
/// ```
///
/// The three dates take no more room than one did: each is kept as the 8 bytes of its time interval, and the
/// attempt and failure counts as 32-bit numbers, so a tracking is 56 bytes, as before the two new dates.
///
/// Errors have no equality of their own, so the errors are compared by identity (the same failure, or a copy of it;
/// see ``HashableError``): two trackings are equal when they show the same status, the same errors, the same counts
/// and the same time.
public struct OperationTracking: Sendable, Hashable {
  /// Where the operation stands.
  public var status: OperationStatus
  /// Whether a fetch (or a run) is in flight, a first one included.
  ///
  /// A query refetching in the background keeps its status and its value; this says the refetch is under way:
  ///
  /// ```swift
  /// if post.isFetching && !post.status.isPending { showRefreshIndicator() }
  /// ```
  ///
  /// It stays `true` from one fetch to the next when work follows at once (a refetch after an invalidation, a page
  /// fetch queued behind a refresh). It is `false` while the fetch waits for the network (``isPaused``).
  public var isFetching: Bool
  /// Whether a fetch (or a run) waits for the network: it would start, or retry, while the device is offline, and
  /// its ``NetworkMode`` holds it until the device is online.
  ///
  /// ```swift
  /// if post.isPaused { showOfflineBadge() }  // a fetch or a mutation waits for the network
  /// ```
  ///
  /// It takes the place of ``isFetching`` while the work waits (the two are never both `true`), and the status stays
  /// what it was: a first load waiting for the network is ``OperationStatus/pending``, a refetch keeps the value's
  /// status, a mutation's run is pending. When the device is online again, the work goes on and shows fetching; when
  /// it ends (or is cancelled, or the state is reset), it is `false`. See ``QueryStore/onlineStatus``.
  public var isPaused: Bool
  /// Which pages the fetch under way fetches, for a paginated query's ``PaginatedState/isFetchingNextPage`` and
  /// ``PaginatedState/isFetchingPreviousPage``; ``PageFetch/none`` when no fetch started since the last one ended.
  /// Kept beside ``isFetching``, where it takes no room of its own.
  @usableFromInline var pageFetch: PageFetch
  /// ``attempt``, in 32 bits (see "Three dates").
  @usableFromInline var storedAttempt: Int32
  /// ``failureCount``, in 32 bits.
  @usableFromInline var storedFailureCount: Int32
  /// ``updatedAt``, ``dataUpdatedAt`` and ``errorUpdatedAt``, 8 bytes each.
  @usableFromInline var storedUpdatedAt: CompactDate
  @usableFromInline var storedDataUpdatedAt: CompactDate
  @usableFromInline var storedErrorUpdatedAt: CompactDate
  /// The error, with the identity it is compared by.
  @usableFromInline var storedError: HashableError?
  /// The error of the last failed attempt, with the identity it is compared by.
  @usableFromInline var storedFailureReason: HashableError?

  /// Idle, with no error, attempt 0, never updated.
  ///
  /// ```swift
  /// var operation = OperationTracking()
  /// ```
  @inlinable
  public init() {
    status = .idle
    isFetching = false
    isPaused = false
    pageFetch = .none
    storedAttempt = 0
    storedFailureCount = 0
    storedUpdatedAt = CompactDate(nil)
    storedDataUpdatedAt = CompactDate(nil)
    storedErrorUpdatedAt = CompactDate(nil)
    storedError = nil
    storedFailureReason = nil
  }

  /// The current attempt of the running operation, from 1; 0 before the first run and after a reset.
  @inlinable
  public var attempt: Int {
    get { Int(storedAttempt) }
    set { storedAttempt = Int32(clamping: newValue) }
  }

  /// How many attempts of the fetch (or run) under way, or of the last one, failed; 0 when a fetch starts or
  /// succeeds.
  ///
  /// ```swift
  /// if post.failureCount > 0 { print("Retrying after \(post.failureCount) failures") }
  /// ```
  @inlinable
  public var failureCount: Int {
    get { Int(storedFailureCount) }
    set { storedFailureCount = Int32(clamping: newValue) }
  }

  /// When an operation last changed this value (a fetch or run started, retried, paused, ended or failed, a value
  /// was set, a reset), or `nil` if none ever did. Not the time the value was obtained: see ``dataUpdatedAt``.
  @inlinable
  public var updatedAt: Date? {
    get { storedUpdatedAt.date }
    set { storedUpdatedAt = CompactDate(newValue) }
  }

  /// When the value shown was obtained: the end of the last successful fetch or run, or the time given with a value
  /// the program set (``QueryStore/setFetchedValue(_:for:updatedAt:)``, an initial value, a value restored from a
  /// persisted cache); `nil` before the first, and after a reset.
  ///
  /// ```swift
  /// if let obtained = post.dataUpdatedAt { print("as of", obtained) }
  /// ```
  ///
  /// A fetch starting, retrying or failing does not move it, nor does an edit in place (``QueryStore/update(_:as:_:)``,
  /// a holder's `withLock`). A query's ``QueryOptions/staleTime`` counts from the same moment.
  @inlinable
  public var dataUpdatedAt: Date? {
    get { storedDataUpdatedAt.date }
    set { storedDataUpdatedAt = CompactDate(newValue) }
  }

  /// When the last fetch or run failed for good (after its retries), the failure ``error`` holds; `nil` before the
  /// first failure, and after a reset. A success clears ``error`` but keeps this date.
  ///
  /// ```swift
  /// if let failedAt = post.errorUpdatedAt, post.error != nil { print("failing since", failedAt) }
  /// ```
  @inlinable
  public var errorUpdatedAt: Date? {
    get { storedErrorUpdatedAt.date }
    set { storedErrorUpdatedAt = CompactDate(newValue) }
  }

  /// The error of the last failure, kept until the next success or a reset; compared by identity.
  ///
  /// ```swift
  /// if let error = post.error { show(error) }
  /// ```
  public var error: (any Error)? {
    get { storedError?.error }
    set { storedError = newValue.map(HashableError.init) }
  }

  /// The error of the last failed attempt of the fetch (or run) under way, or of the last one; `nil` when a fetch
  /// starts or succeeds. Compared by identity.
  ///
  /// ```swift
  /// if let reason = post.failureReason { print("Attempt \(post.attempt - 1) failed:", reason) }
  /// ```
  ///
  /// Unlike ``error``, which a fetch sets only when it fails for good, this shows each failure as it happens,
  /// while retries are still to come.
  public var failureReason: (any Error)? {
    get { storedFailureReason?.error }
    set { storedFailureReason = newValue.map(HashableError.init) }
  }

  // MARK: Transitions (the library's writes)

  /// A run starts: pending, fetching, at its first attempt, with no failure yet.
  @inlinable
  mutating func begin() {
    status = .pending
    isFetching = true
    isPaused = false
    attempt = 1
    failureCount = 0
    storedFailureReason = nil
    updatedAt = Date()
  }

  /// A query's fetch of `pages` starts: fetching, at its first attempt, with no failure yet. The status stays as it
  /// is (a refetch is not a load), except that a query with nothing fetched yet (idle) shows pending: a first load.
  @inlinable
  mutating func beginFetch(_ pages: PageFetch = .all) {
    if status == .idle { status = .pending }
    isFetching = true
    isPaused = false
    pageFetch = pages
    attempt = 1
    failureCount = 0
    storedFailureReason = nil
    updatedAt = Date()
  }

  /// An attempt failed with `error`, the `failureCount`-th failure of the fetch or run; a retry follows.
  @inlinable
  mutating func noteFailure(_ error: any Error, failureCount: Int) {
    self.failureCount = failureCount
    storedFailureReason = HashableError(error)
    updatedAt = Date()
  }

  /// A query's fetch ended and no work follows it: not fetching any more.
  @inlinable
  mutating func endFetch() {
    isFetching = false
    isPaused = false
    pageFetch = .none
    updatedAt = Date()
  }

  /// The fetch (or run) under way waits for the network (`true`: it shows paused, not fetching) or goes on again
  /// (`false`: it shows fetching). Going on changes nothing unless it showed paused.
  @inlinable
  mutating func showPaused(_ paused: Bool) {
    if paused {
      guard !isPaused else { return }
      isPaused = true
      isFetching = false
    } else {
      guard isPaused else { return }
      isPaused = false
      isFetching = true
    }
    updatedAt = Date()
  }

  /// The running operation begins attempt `attempt` (from 2 for the first retry).
  @inlinable
  mutating func retry(_ attempt: Int) {
    self.attempt = attempt
    updatedAt = Date()
  }

  /// The running operation showed an intermediate value; it stays pending.
  @inlinable
  mutating func noteChange() {
    updatedAt = Date()
  }

  /// The run succeeded: the error and the failures go; nothing is in flight any more.
  @inlinable
  mutating func succeed() {
    status = .success
    isFetching = false
    isPaused = false
    pageFetch = .none
    failureCount = 0
    storedError = nil
    storedFailureReason = nil
    let now = Date()
    updatedAt = now
    dataUpdatedAt = now
  }

  /// The run failed with `error`, which stays until the next success or a reset; it counts as one more failure.
  @inlinable
  mutating func fail(_ error: any Error) {
    status = .error
    isFetching = false
    isPaused = false
    pageFetch = .none
    let failure = HashableError(error)
    failureCount += 1
    storedError = failure
    storedFailureReason = failure
    let now = Date()
    updatedAt = now
    errorUpdatedAt = now
  }

  /// No run is left that could write: shows `status`, the one the last shown run (or a reset) left.
  @inlinable
  mutating func restore(_ status: OperationStatus) {
    self.status = status
    isFetching = status == .pending
    isPaused = false
    pageFetch = .none
    updatedAt = Date()
  }

  /// The program set the value itself, obtained at `date`: a success, with no error; a fetch under way goes on (it
  /// still shows as fetching) and writes its own result when it ends.
  @inlinable
  mutating func markSet(at date: Date) {
    status = .success
    storedError = nil
    // A fetch under way keeps the count of its own failures.
    if !isFetching {
      failureCount = 0
      storedFailureReason = nil
    }
    updatedAt = date
    dataUpdatedAt = date
  }

  /// Back to idle: no error, no failures, attempt 0, no data or error date.
  @inlinable
  mutating func reset() {
    dataUpdatedAt = nil
    errorUpdatedAt = nil
    status = .idle
    isFetching = false
    isPaused = false
    pageFetch = .none
    storedError = nil
    storedFailureReason = nil
    attempt = 0
    failureCount = 0
    updatedAt = Date()
  }
}

extension OperationTracking {
  /// Which pages a query's fetch fetches: what a paginated state tells its holders while it runs.
  @usableFromInline
  enum PageFetch: UInt8, Sendable, Hashable {
    /// No fetch runs, or one started before the last ended (work that followed at once).
    case none
    /// The whole value: a plain query's fetch, or a paginated query's first page or refetch of every page.
    case all
    /// The page after the loaded ones.
    case next
    /// The page before the loaded ones.
    case previous
  }
}

/// An optional date in 8 bytes (a `Date?` takes 9, and 16 with its padding): the bits of its time interval since the
/// reference date, or a pattern no date has for `nil`.
@usableFromInline
struct CompactDate: Sendable, Hashable {
  /// A NaN with a payload of its own: no `Date` the library writes has it (and NaN dates are not dates).
  @usableFromInline static let none: UInt64 = 0x7FF8_DEAD_0000_0001

  @usableFromInline let bits: UInt64

  @inlinable
  init(_ date: Date?) {
    bits = date.map { $0.timeIntervalSinceReferenceDate.bitPattern } ?? Self.none
  }

  @inlinable
  var date: Date? {
    bits == Self.none ? nil : Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
  }
}
