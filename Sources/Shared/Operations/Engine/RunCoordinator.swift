import Synchronization

/// The lock around the coordination of runs on one shared value.
///
/// Decisions are made synchronously inside `run`, under this lock, so runs are coordinated in the order `run` was
/// called; waiting happens afterwards, on tasks and continuations, never under the lock. When a decision goes with a
/// write of the value (a run starts, ends or retries), the caller takes the value's lock first and this one inside
/// it, never the other way round. Whatever the machines hand back (tasks to cancel, waiters to resume, results they
/// stop holding) is acted on or released after the lock.
@usableFromInline
final class RunCoordinator<Value: OperationTrackable>: Sendable {
  /// The machines of every policy, with the handles a run hands them: tasks and continuations.
  @usableFromInline
  typealias Coordination = RunCoordination<
    Value.Success, Task<Value.Success, any Error>, Task<Void, Never>,
    UnsafeContinuation<RunOutcome<Value.Success>, Never>, UnsafeContinuation<UInt64?, Never>
  >

  @usableFromInline let coordination = Lock(Coordination())
  /// The table this coordinator belongs to and its path there, for a coordinator of a member of a root.
  let home: (table: RunCoordinatorTable, path: RunCoordinatorTable.Path)?

  /// A coordinator of a whole value, kept by the value's box.
  @usableFromInline
  init() {
    home = nil
  }

  /// A coordinator of a member, kept weakly by `home`'s table.
  init(home: (table: RunCoordinatorTable, path: RunCoordinatorTable.Path)) {
    self.home = home
  }

  deinit {
    if let home { home.table.remove(home.path) }
  }

  /// Runs `body` with the coordination, under the lock.
  @inlinable
  func coordinate<Result>(_ body: (inout Coordination) -> sending Result) -> sending Result {
    coordination.withLock { body(&$0) }
  }
}
