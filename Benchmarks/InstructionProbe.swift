/// What the instruction probe runs: one kind of operation, `count` times in a row, and nothing else, so that
/// `valgrind --tool=callgrind` counts the instructions of exactly that. The operations are the same closures the
/// timed rows run.
///
/// The instructions of one operation are the difference between the totals at two counts, over the difference of
/// the counts; the program's start and end cancel out:
///
/// ```sh
/// for count in 1000000 2000000; do
///   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
///     .build/release/Benchmarks --instruction-probe read $count 2>&1 | grep Collected
/// done
/// ```
///
/// The asynchronous probes (a task, an operation, a new query key, a miss) start the concurrency runtime's threads,
/// on which valgrind crashes; count them with `perf stat -e instructions` where the machine exposes the counter, or
/// compare their CPU time (`perf stat -e task-clock`) at two counts the same way.
enum InstructionProbe: String, CaseIterable {
  /// A read of an untracked box (the "read" row).
  case read
  /// A read of a box Observation has tracked (the "read of a tracked box" row).
  case trackedRead = "tracked-read"
  /// A bare `Mutex` read, the baseline of both.
  case mutexRead = "mutex-read"
  /// `withLock { $0 += 1 }` on a box nobody listens to (the "withLock" row).
  case increment
  /// A bare `Mutex` increment, its baseline.
  case mutexIncrement = "mutex-increment"
  /// A new holder of an existing key (the "holder of an existing key" rows).
  case existingHolder = "existing-holder"
  /// A bare `Task { }` and its await, the baseline of the asynchronous rows below.
  case task
  /// A trivial operation with all four callbacks (the "trivial operation" row).
  case trivialOperation = "trivial-operation"
  /// The first holder of a new query key, the fetch it starts, the wait for its value and the key's removal (the
  /// "new query key" row times the first of these).
  case newQueryKey = "new-query-key"
  /// A miss of a store at its capacity, with and without a per-attempt timeout, and the upstream called directly
  /// (the "query miss" rows).
  case queryMiss = "query-miss"
  case queryMissWithTimeout = "query-miss-timeout"
  case directCall = "direct-call"

  /// The operations of a synchronous probe, run on the calling thread: valgrind counts them without a thread of
  /// the concurrency runtime's pool starting (it crashes when one does, so the asynchronous probes are for `perf`).
  var synchronousOperations: ((Int) -> Void)? {
    switch self {
    case .read: boxRead()
    case .trackedRead: trackedBoxRead()
    case .mutexRead: Benchmarks.mutexRead()
    case .increment: boxIncrement()
    case .mutexIncrement: Benchmarks.mutexIncrement()
    case .existingHolder: existingKeyHolder()
    case .task, .trivialOperation, .newQueryKey, .queryMiss, .queryMissWithTimeout, .directCall: nil
    }
  }

  /// Runs `count` operations.
  func run(count: Int) async {
    if let operations = synchronousOperations { return operations(count) }
    switch self {
    case .task: _ = await bareTask(count)
    case .trivialOperation: _ = await Benchmarks.trivialOperation(count)
    case .newQueryKey: _ = await QueryCache(cached: 0).newKeys(count)
    case .queryMiss, .queryMissWithTimeout:
      _ = await QueryMisses(timeout: self == .queryMiss ? nil : .seconds(10)).misses(count)
    case .directCall: _ = await directCalls(count)
    case .read, .trackedRead, .mutexRead, .increment, .mutexIncrement, .existingHolder: break
    }
  }
}
