public import Foundation

/// Mutations that survive a restart: queued in a file with their arguments, run in order while the device is
/// online, and run again after the program is killed or relaunched until each one succeeds.
///
/// ```swift
/// func startQueue(folder: URL, network: ManualOnlineStatus, api: TodoAPI) throws -> MutationQueue {
///   let queue = MutationQueue(file: folder.appendingPathComponent("mutations.json"), network: network)
///   let insert = OptimisticMutation { (title: String, cache: OptimisticCache) in
///     cache.update(["todos"], as: OperationState<[String]>.self) { todos in
///       if todos.value?.contains(title) == false { todos.value?.append(title) }
///     }
///   }
///   queue.register(.mutation("add-todo"), invalidates: [["todos"]], optimistic: insert) {
///     (title: String, context) in
///     try await api.addTodo(title, idempotencyKey: context.idempotencyKey)
///   }
///   try queue.restore()  // the entries of earlier runs: their optimistic changes show again
///   return queue
/// }
///
/// func addTodo(_ title: String, queue: MutationQueue) throws {
///   try queue.enqueue("add-todo", title)  // shown at once; sent when online, in order
/// }
/// ```
///
/// At launch, register each mutation function under its key (as TanStack Query's `setMutationDefaults` does), then
/// call ``restore()``: entries queued by earlier runs find their functions again by key, their optimistic changes
/// show again in the cached queries, and they run once the device is online.
///
/// ## Order, retries and the network
///
/// Entries run one at a time, in the order they were queued, and only while the queue's ``OnlineStatusSource``
/// says the device is online; while it is offline the queue is paused (``MutationQueueState/isPaused``) and its
/// entries wait. The library's own sources (``ManualOnlineStatus``, `NetworkPathOnlineStatus`) tell the queue of a
/// change at once, in the thread that made it, as they tell the store (after `setOnline(false)` returns, ``isPaused``
/// is true); a source of the program's own is followed through its `onlineStatuses()`. A run that fails is retried
/// after a backoff (or as soon as the network comes back), and the entries behind it wait: none is skipped while it
/// may still succeed. An entry leaves the queue when its run succeeds, or when the program discards it
/// (``discard(_:)``), which undoes its optimistic changes.
///
/// ## Giving up
///
/// By default an entry is retried until it succeeds. A ``QueuedMutationRetryPolicy`` (given to ``register(_:invalidates:awaitsRefetches:retry:_:)``,
/// or to the queue for every mutation) lets it give up after a number of attempts, or at once on an error the
/// server will answer the same way every time (an HTTP 4xx). An entry that gives up leaves the run order, so the
/// entries behind it go on, its optimistic changes are undone, and it waits in ``MutationQueueState/failed`` with
/// its error, after a restart too, until the program retries it (``retry(_:)``) or discards it. Attempts are
/// counted across restarts.
///
/// Each run goes through the mutation key's shared state: holders of `.mutation("add-todo")` see it pending, then
/// its result, and its runs in their history; after a success the queries it `invalidates` refetch.
///
/// ## What a kill can cost
///
/// An entry is written to the file (a new file beside it, synced, renamed over it, the folder synced: the path
/// ``SharedReaderKey/fileStorage(_:saveDelay:pollInterval:clock:)`` values take) before it ever runs, with the count
/// of the attempt about to start, and leaves the file only after its run succeeded, it gave up, or the program
/// discarded it; the next entry starts only once that removal is written. So a program killed
/// at any moment loses none of the entries it saved (``QueuedMutation/isSaved``, or after ``flush()``), and after a
/// restart at most one entry runs again: the one that was running. Mutations run at least once; with the
/// idempotency key each run receives (``MutationQueueContext/id``) and a server that applies a key once, exactly
/// once. An entry whose write is still under way when the program ends normally (its top-level code returns, or it
/// calls `exit`) is written before the process is gone, and ``SharedRegistry/flush()`` writes it too; only a kill
/// can catch an entry between `enqueue` and its write, a few
/// milliseconds.
///
/// Since each attempt is counted in the file before it starts, a kill never lets an entry whose policy has a
/// maximum (``QueuedMutationRetryPolicy/maxAttempts``) run without bound: the attempt a kill interrupted counts, and
/// the entry runs once more after the restart if that was its last; a kill during that extra one gives it up
/// (``MutationQueueError/attemptsInterrupted(key:attempts:)``). At most `maxAttempts + 1` runs in all.
public final class MutationQueue: Sendable {
  /// The file the queue keeps its entries in.
  public let url: URL
  /// The registry whose queries the optimistic changes and invalidations reach, and whose mutation states show the
  /// runs.
  let registry: SharedRegistry
  /// The clock of the backoffs.
  let clock: any Clock<Duration>
  /// The wait before an entry's retry, given how many times it failed.
  let retryDelay: @Sendable (_ failureCount: Int) -> Duration
  /// When the entries of a mutation registered without a policy of its own give up.
  let retryPolicy: QueuedMutationRetryPolicy
  /// The file's writer, the one file storage uses.
  let file: FileStore
  /// What ``state`` shows.
  let shown: Shared<MutationQueueState>
  let locked: Lock<State>
  /// Stops following the online status.
  private let following = Lock<SharedSubscription?>(nil)

  typealias Machine = MutationQueueStateMachine<CheckedContinuation<Void, any Error>>

  /// The machine, and what the queue keeps beside it; touched only under the lock of `locked`.
  struct State: ~Copyable {
    var machine: Machine
    /// The registered mutation functions, by key.
    var registrations: [QueryKey: QueuedMutationRegistration] = [:]
    /// The optimistic changes of each entry, to keep when it succeeds or undo when it is discarded.
    var changes: [UUID: OptimisticChangeSet] = [:]
    /// The backoff under way, by entry, with the failure it follows.
    var backoffs: [UUID: (failures: Int, task: Task<Void, Never>)] = [:]
    /// Whether ``MutationQueue/restore()`` was called (and did not find the file in use).
    var restoreCalled = false
    /// The queue's claim on its file, taken by ``MutationQueue/restore()``: held while the queue exists.
    var claim: FileClaim?
    /// The number of the latest state published.
    var publication: UInt64 = 0
  }

  /// A queue kept in the file at `url`, running its entries while `network` says the device is online.
  ///
  /// ```swift
  /// let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
  /// let queue = MutationQueue(file: folder.appendingPathComponent("mutations.json"), network: ManualOnlineStatus())
  /// ```
  ///
  /// Keep the queue for as long as the program runs (one per file): it follows the network while it exists. It
  /// uses the queries of ``SharedRegistry/current`` as it is when the queue is made. Nothing runs and nothing is
  /// written until ``restore()`` is called.
  ///
  /// - Parameters:
  ///   - url: The file; made, with its folders, on the first write.
  ///   - network: Whether the device is online; ``ManualOnlineStatus`` is one your program drives.
  ///   - retryDelay: The wait before an entry's retry, given how many times it failed (from 1); by default 1 s,
  ///     doubling up to 60 s.
  ///   - retry: When the entries of a mutation registered without a policy of its own give up; by default never
  ///     (``QueuedMutationRetryPolicy/forever``).
  ///   - clock: The clock the backoffs wait on; a ``ManualClock`` in tests.
  public init(
    file url: URL,
    network: some OnlineStatusSource,
    retryDelay: (@Sendable (_ failureCount: Int) -> Duration)? = nil,
    retry: QueuedMutationRetryPolicy = .forever,
    clock: any Clock<Duration> = ContinuousClock()
  ) {
    self.url = url
    retryPolicy = retry
    registry = SharedRegistry.current
    self.clock = clock
    self.retryDelay =
      retryDelay ?? { failures in
        RetryPolicy.exponentialDelay(
          beforeRetry: failures, initial: .seconds(1), multiplier: 2, maxDelay: .seconds(60), jitter: 0, random: 0)
      }
    file = FileStore.forFile(at: url)
    let isOnline = network.isOnline
    shown = Shared(value: MutationQueueState(isOnline: isOnline))
    locked = Lock(State(machine: Machine(isOnline: isOnline)))
    following.withLock { $0 = follow(network) }
    // A change not yet written is written by the registry's flush and at a normal exit (MutationQueue+Exit).
    registry.flushParticipants.join(self)
    registry.inspector.track(self)
  }

  deinit {
    following.withLock { $0 }?.cancel()  // Outside the lock: it takes the source's lock.
    for backoff in locked.withLock({ $0.backoffs.values.map(\.task) }) { backoff.cancel() }
  }

  /// Follows `network`: the library's own sources tell the queue of a change in the thread that made it, before
  /// their `setOnline(_:)` returns, as they tell a store's network gate; a source of the program's own is followed
  /// through its `onlineStatuses()`. Each report carries its sequence number, so the machine keeps the newest.
  private func follow(_ network: some OnlineStatusSource) -> SharedSubscription {
    if let network = network as? any BroadcastOnlineStatus {
      // Weak: the source keeps its listeners, and the queue must not live as long as it.
      let (isOnline, sequence, subscription) = network.broadcast.listen { [weak self] isOnline, sequence in
        self?.handle { $0.machine.setOnline(isOnline, sequence: sequence) }
      }
      // The status now, taken with the registration: a change since `network.isOnline` was read counts.
      handle { $0.machine.setOnline(isOnline, sequence: sequence) }
      return subscription
    }
    let statuses = network.onlineStatuses()
    // Weak, and detached so that it keeps neither the queue nor the task-local registry alive. Its sequence starts
    // with the status now, as new as `network.isOnline` read at the queue's start or newer.
    let task = Task.detached { [weak self] in
      var sequence: UInt64 = 0
      for await isOnline in statuses {
        sequence += 1
        guard let self else { return }
        let reported = sequence
        self.handle { $0.machine.setOnline(isOnline, sequence: reported) }
      }
    }
    return SharedSubscription { task.cancel() }
  }

  /// The queue's entries and whether it runs them, for a screen: every change of the queue updates it.
  ///
  /// ```swift
  /// func showPending(_ queue: MutationQueue) -> ObserverToken {
  ///   queue.state.observe { state in
  ///     print(state.entries.count, "pending", state.isPaused ? "(offline)" : "")
  ///   }
  /// }
  /// ```
  public var state: SharedReader<MutationQueueState> {
    SharedReader(shown)
  }

  /// The queued mutations, oldest first; the same as `state.wrappedValue.entries`.
  public var entries: [QueuedMutation] {
    shown.wrappedValue.entries
  }

  /// Whether the queue holds its entries back now (offline, or not restored yet); the same as
  /// `state.wrappedValue.isPaused`.
  public var isPaused: Bool {
    shown.wrappedValue.isPaused
  }

  // MARK: Registering

  /// Registers the mutation function for `key` and the keys under it: what runs the entries queued under them, in
  /// this run of the program and after a restart.
  ///
  /// ```swift
  /// func register(on queue: MutationQueue, api: TodoAPI) {
  ///   queue.register(.mutation("add-todo"), invalidates: [["todos"]]) { (title: String, context) in
  ///     try await api.addTodo(title, idempotencyKey: context.idempotencyKey)
  ///   }
  /// }
  /// ```
  ///
  /// Register every mutation the queue may hold before ``restore()``, the way TanStack Query's
  /// `setMutationDefaults` is called at startup. An entry is run by the registration with the longest key that
  /// starts it: one registered under `["posts"]` runs `.mutation(["posts", 42, "rename"])`, unless
  /// `["posts", 42]` has one of its own. Registering a key again replaces its function. Entries read back before
  /// their mutation was registered wait, with the entries behind them, until it is.
  ///
  /// - Parameters:
  ///   - key: The mutation's key, with its argument and result types.
  ///   - invalidates: Key prefixes of the queries a success makes stale.
  ///   - awaitsRefetches: Whether a run settles only once the held queries it invalidates were refetched (so the
  ///     next entry starts after the screens show the server's data); `false` by default.
  ///   - retry: When its entries give up (``QueuedMutationRetryPolicy``); `nil` (the default) for the queue's
  ///     policy, which retries forever unless the queue was made with another.
  ///   - perform: The mutation: given its arguments and the entry's context, whose
  ///     ``MutationQueueContext/idempotencyKey`` it can send to the server.
  public func register<Arguments: Codable & Sendable, Result: Sendable>(
    _ key: MutationKey<Arguments, Result>,
    invalidates: [QueryKey] = [],
    awaitsRefetches: Bool = false,
    retry: QueuedMutationRetryPolicy? = nil,
    _ perform: @escaping @Sendable (Arguments, MutationQueueContext) async throws -> Result
  ) {
    register(
      QueuedMutationRegistration(
        key: key, invalidates: invalidates, awaitsRefetches: awaitsRefetches, retry: retry,
        optimistic: OptimisticMutation<Arguments, Void>?.none, perform: perform))
  }

  /// Registers the mutation function for `key` and the keys under it, with the optimistic changes each entry makes
  /// to cached queries: made when the entry is queued, made again when it is read back after a restart, kept when
  /// it succeeds and undone if it is discarded or gives up.
  ///
  /// ```swift
  /// func register(on queue: MutationQueue, api: TodoAPI) {
  ///   let insert = OptimisticMutation { (title: String, cache: OptimisticCache) in
  ///     cache.update(["todos"], as: OperationState<[String]>.self) { todos in
  ///       if todos.value?.contains(title) == false { todos.value?.append(title) }
  ///     }
  ///   }
  ///   queue.register(.mutation("add-todo"), invalidates: [["todos"]], optimistic: insert) {
  ///     (title: String, context) in
  ///     try await api.addTodo(title, idempotencyKey: context.idempotencyKey)
  ///   }
  /// }
  /// ```
  ///
  /// Otherwise as ``register(_:invalidates:awaitsRefetches:retry:_:)``. A change to a query the store keeps nothing
  /// of yet waits for it: it shows as soon as the query is made (by a holder) or restored from a persisted cache, so
  /// after a restart the queue may be restored before or after ``QueryStore/persistCache(_:)`` and the holders. A
  /// failed run keeps the changes: the entry is still queued. Write `apply` so that it
  /// changes nothing when the server's data already holds the change (a refetch can bring it while the change is
  /// still applied over it).
  ///
  /// - Parameters:
  ///   - key: The mutation's key, with its argument and result types.
  ///   - invalidates: Key prefixes of the queries a success makes stale.
  ///   - awaitsRefetches: Whether a run settles only once the held queries it invalidates were refetched; `false`
  ///     by default.
  ///   - retry: When its entries give up; `nil` (the default) for the queue's policy.
  ///   - optimistic: Changes cached queries for an entry's arguments; what it returns is not used.
  ///   - perform: The mutation: given its arguments and the entry's context.
  public func register<Arguments: Codable & Sendable, Result: Sendable, Context: Sendable>(
    _ key: MutationKey<Arguments, Result>,
    invalidates: [QueryKey] = [],
    awaitsRefetches: Bool = false,
    retry: QueuedMutationRetryPolicy? = nil,
    optimistic: OptimisticMutation<Arguments, Context>,
    _ perform: @escaping @Sendable (Arguments, MutationQueueContext) async throws -> Result
  ) {
    register(
      QueuedMutationRegistration(
        key: key, invalidates: invalidates, awaitsRefetches: awaitsRefetches, retry: retry, optimistic: optimistic,
        perform: perform))
  }

  private func register(_ registration: QueuedMutationRegistration) {
    let maxAttempts = policy(of: registration).maxAttempts
    handle { state in
      state.registrations[registration.key] = registration
      // The entries it runs now (registered ones; the others are unblocked below) take its policy.
      let served = state.machine.entries.filter { entry in
        entry.blocker == nil
          && Self.registration(for: entry.key, in: state.registrations)?.key == registration.key
      }
      return state.machine.setMaxAttempts(maxAttempts, for: Set(served.map(\.id)))
    }
    unblockRegistered()
  }

  /// The policy `registration`'s entries give up by: its own, or the queue's.
  func policy(of registration: QueuedMutationRegistration?) -> QueuedMutationRetryPolicy {
    registration?.retry ?? retryPolicy
  }

  /// Lets the entries that waited for their mutation's registration run, if it came: their optimistic changes
  /// first (or, if their arguments no longer decode, a blocker saying so).
  func unblockRegistered() {
    let waiting = locked.withLock { state -> [(MutationQueueEntry, QueuedMutationRegistration)] in
      state.machine.entries.compactMap { entry in
        guard case .notRegistered = entry.blocker,
          let registration = Self.registration(for: entry.key, in: state.registrations)
        else { return nil }
        return (entry, registration)
      }
    }
    for (entry, registration) in waiting {
      // The optimistic changes are the program's code: made outside the lock.
      let (changes, blocker) = prepare(entry.arguments, key: entry.key, with: registration)
      let duplicate = handle { state -> ([Machine.Effect], OptimisticChangeSet?) in
        // Another registration's call may have let it run meanwhile: these changes are then one time too many.
        guard case .notRegistered = state.machine.entries.first(where: { $0.id == entry.id })?.blocker else {
          return ([], changes)
        }
        if let changes { state.changes[entry.id] = changes }
        if let blocker { return (state.machine.block(entry.id, blocker), nil) }
        return (state.machine.unblock(entry.id, maxAttempts: self.policy(of: registration).maxAttempts), nil)
      }
      duplicate?.undo()
    }
  }

  /// The registration that runs `key`: its own, or the one of its longest prefix.
  static func registration(
    for key: QueryKey,
    in registrations: [QueryKey: QueuedMutationRegistration]
  ) -> QueuedMutationRegistration? {
    var length = key.parts.count
    while length > 0 {
      let prefix = length == key.parts.count ? key : QueryKey(Array(key.parts.prefix(length)))
      if let found = registrations[prefix] { return found }
      length -= 1
    }
    return nil
  }

  /// Makes an entry's optimistic changes; returns them, or why its arguments no longer decode.
  func prepare(
    _ arguments: Data,
    key: QueryKey,
    with registration: QueuedMutationRegistration
  ) -> (changes: OptimisticChangeSet?, blocker: MutationQueueError?) {
    do {
      return (try registration.applyOptimistic(arguments, registry.queries), nil)
    } catch {
      return (nil, .undecodableArguments(key: key, reason: "\(error)"))
    }
  }

  // MARK: Queueing

  /// Queues the mutation named `name` with `arguments`: its optimistic changes show at once, the entry is written
  /// to the queue's file, and it runs after the entries before it, once the device is online.
  ///
  /// ```swift
  /// func addTodo(_ title: String, queue: MutationQueue) throws {
  ///   try queue.enqueue("add-todo", title)  // shown at once; sent when online, in order
  /// }
  /// ```
  ///
  /// The mutation registered under the name (``register(_:invalidates:awaitsRefetches:retry:_:)``) runs it; its argument
  /// type must be `Arguments`. The entry runs only once a write that holds it has ended, so a run the server may
  /// have seen is always in the file. To know that it is saved, await ``flush()`` (or read
  /// ``QueuedMutation/isSaved``).
  ///
  /// - Parameters:
  ///   - name: The mutation's name: the key of that one part, as in `.mutation("add-todo")`.
  ///   - arguments: What to run the mutation with; written to the file as JSON.
  /// - Returns: The entry's identifier: its idempotency key, the same after a restart.
  /// - Throws: ``MutationQueueError`` when no mutation with these arguments is registered under the name, or the
  ///   arguments cannot be written to the file.
  @discardableResult
  public func enqueue<Arguments: Codable & Sendable>(
    _ name: String,
    _ arguments: Arguments
  ) throws(MutationQueueError) -> UUID {
    try enqueue([name], arguments)
  }

  /// Queues the mutation named by `key` with `arguments`, as ``enqueue(_:_:)-(String,_)`` does: for a mutation per
  /// entity, whose key names the entity.
  ///
  /// ```swift
  /// func rename(post id: Int, to title: String, queue: MutationQueue) throws {
  ///   try queue.enqueue(["posts", id, "rename"], title)  // run by the mutation registered under ["posts"]
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The mutation's key; a mutation must be registered under it or a prefix of it. Its parts must be
  ///     `String`, `Int`, `Bool`, `Double` or `UUID` values, which the file can hold.
  ///   - arguments: What to run the mutation with; written to the file as JSON.
  /// - Returns: The entry's identifier: its idempotency key, the same after a restart.
  /// - Throws: ``MutationQueueError`` when no mutation with these arguments is registered for the key, or the key
  ///   or the arguments cannot be written to the file.
  @discardableResult
  public func enqueue<Arguments: Codable & Sendable>(
    _ key: QueryKey,
    _ arguments: Arguments
  ) throws(MutationQueueError) -> UUID {
    try enqueue(key, arguments, accepting: { $0.argumentsType == Arguments.self }, as: "\(Arguments.self)")
  }

  /// Queues the mutation of `key`, whose types the compiler checks against the key's, as
  /// ``enqueue(_:_:)-(String,_)`` does: for keys kept as constants.
  ///
  /// ```swift
  /// enum Mutations {
  ///   static let addTodo = MutationKey<String, [String]>("add-todo")
  /// }
  ///
  /// func addTodo(_ title: String, queue: MutationQueue) throws {
  ///   try queue.enqueue(Mutations.addTodo, title)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The mutation's key, with its types; a mutation of these types must be registered under it or a
  ///     prefix of it.
  ///   - arguments: What to run the mutation with; written to the file as JSON.
  /// - Returns: The entry's identifier: its idempotency key, the same after a restart.
  /// - Throws: ``MutationQueueError`` when no such mutation is registered, or the key or the arguments cannot be
  ///   written to the file.
  @discardableResult
  public func enqueue<Arguments: Codable & Sendable, Result: Sendable>(
    _ key: MutationKey<Arguments, Result>,
    _ arguments: Arguments
  ) throws(MutationQueueError) -> UUID {
    try enqueue(
      key.key, arguments, accepting: { $0.accepts(Arguments.self, Result.self) },
      as: "\(Arguments.self) returning \(Result.self)")
  }

  private func enqueue<Arguments: Codable & Sendable>(
    _ key: QueryKey,
    _ arguments: Arguments,
    accepting accepts: (QueuedMutationRegistration) -> Bool,
    as given: String
  ) throws(MutationQueueError) -> UUID {
    _ = try MutationQueueFile.storedKey(key)
    guard let registration = locked.withLock({ Self.registration(for: key, in: $0.registrations) }) else {
      throw .notRegistered(key: key)
    }
    guard accepts(registration) else {
      throw .typeMismatch(key: key, registered: registration.typeName, given: "mutation of \(given)")
    }
    let encoded = try MutationQueueFile.encodeArguments(arguments, key: key)
    var entry = MutationQueueEntry(id: UUID(), key: key, arguments: encoded, enqueuedAt: Date())
    entry.maxAttempts = policy(of: registration).maxAttempts
    // The optimistic changes are the program's code: made before the lock.
    let (changes, blocker) = prepare(encoded, key: key, with: registration)
    if let blocker { throw blocker }
    handle { [entry] state in
      if let changes { state.changes[entry.id] = changes }
      return state.machine.enqueue(entry)
    }
    return entry.id
  }

  /// Takes the entry `id` out of the queue, so it never runs, and undoes its optimistic changes: for a change the
  /// user gave up, or one the server keeps refusing. An entry that gave up (``MutationQueueState/failed``) is
  /// discarded the same way; its optimistic changes were undone as it gave up.
  ///
  /// ```swift
  /// func giveUp(on entry: QueuedMutation, queue: MutationQueue) {
  ///   if entry.failureCount > 0 { queue.discard(entry.id) }
  /// }
  /// ```
  ///
  /// The entry behind it moves up, and starts only once a write of the file without the discarded entry has ended,
  /// as after a success: a kill can never run the discarded entry after it. A kill before that write ends finds
  /// the discarded entry in the file at the restart, as it would an entry queued but not yet written; await
  /// ``flush()`` to know that the discard is saved. An entry that is running cannot be discarded (the server may
  /// already have it): it leaves the queue if its run succeeds, and can be discarded if it fails.
  ///
  /// - Parameter id: The entry's identifier.
  /// - Returns: Whether the entry was queued and not running, or had given up, and so was discarded.
  @discardableResult
  public func discard(_ id: UUID) -> Bool {
    handle { state in
      let (discarded, effects) = state.machine.discard(id)
      return (effects, discarded)
    }
  }

  /// Puts the entry `id`, which gave up, back in the queue: it runs again after the entries queued now, with its
  /// optimistic changes made again and its attempts counted from 1.
  ///
  /// ```swift
  /// func retryFailed(_ queue: MutationQueue) {
  ///   for entry in queue.state.wrappedValue.failed {
  ///     queue.retry(entry.id)
  ///   }
  /// }
  /// ```
  ///
  /// It keeps its identifier, so the server sees the same idempotency key (``MutationQueueContext/id``): a server
  /// that kept the answer of an earlier attempt under that key may give the same answer again. The retry is
  /// written to the file like a new entry (``flush()`` waits for it). If its mutation is not registered, or its
  /// arguments no longer decode, it waits with that reason (``QueuedMutation/Status/blocked(_:)``), as a restored
  /// entry would.
  ///
  /// - Parameter id: The identifier of an entry in ``MutationQueueState/failed``.
  /// - Returns: Whether the entry had given up, and so was put back.
  @discardableResult
  public func retry(_ id: UUID) -> Bool {
    let found = locked.withLock { state -> (MutationQueueEntry, QueuedMutationRegistration?)? in
      guard let entry = state.machine.failed.first(where: { $0.id == id }) else { return nil }
      return (entry, Self.registration(for: entry.key, in: state.registrations))
    }
    guard let (entry, registration) = found else { return false }
    var changes: OptimisticChangeSet?
    var blocker = MutationQueueError.notRegistered(key: entry.key) as MutationQueueError?
    if let registration {
      // The program's code: outside the lock.
      (changes, blocker) = prepare(entry.arguments, key: entry.key, with: registration)
    }
    let maxAttempts = policy(of: registration).maxAttempts
    let (retried, duplicate) = handle { [changes, blocker] state -> ([Machine.Effect], (Bool, OptimisticChangeSet?)) in
      let (retried, effects) = state.machine.retry(id, maxAttempts: maxAttempts, blocker: blocker)
      // Another call retried (or discarded) it meanwhile: these changes are one time too many.
      guard retried else { return ([], (false, changes)) }
      if let changes { state.changes[id] = changes }
      return (effects, (true, nil))
    }
    duplicate?.undo()
    return retried
  }

  /// Waits until every entry queued so far, and every entry that left, is written to the queue's file.
  ///
  /// ```swift
  /// func addAndSave(_ title: String, queue: MutationQueue) async throws {
  ///   try queue.enqueue("add-todo", title)
  ///   try await queue.flush()  // now it survives a kill
  /// }
  /// ```
  ///
  /// After a failed write, a flush writes again. Before ``restore()`` nothing is written (the file's entries are
  /// not read yet), and a flush returns at once.
  ///
  /// - Throws: The error of the write that answered it, such as ``FileStorageError/unwritable(url:reason:)``.
  public func flush() async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      handle { $0.machine.flush(continuation) }
    }
  }
}
