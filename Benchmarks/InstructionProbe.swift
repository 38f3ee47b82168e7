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

  /// Runs `count` operations.
  func run(count: Int) {
    let operations =
      switch self {
      case .read: boxRead()
      case .trackedRead: trackedBoxRead()
      case .mutexRead: Benchmarks.mutexRead()
      case .increment: boxIncrement()
      case .mutexIncrement: Benchmarks.mutexIncrement()
      }
    operations(count)
  }
}
