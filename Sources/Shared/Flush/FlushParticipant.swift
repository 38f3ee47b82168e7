/// Something that keeps writes waiting and writes them when the program asks (``SharedRegistry/flush()``) and when
/// it ends (``ExitFlush``): a value whose key saves, and whatever else persists on its own schedule (a persisted
/// query cache, a durable queue of mutations).
///
/// A participant joins its registry's list, ``SharedRegistry/flushParticipants``, once, when it starts keeping
/// writes (a value joins when it is made):
///
/// ```swift
/// registry.flushParticipants.join(cachePersister)
/// ```
///
/// The list refers to participants weakly: a participant leaves when it is freed, and nothing else is needed.
protocol FlushParticipant: AnyObject, Sendable {
  /// What to call the participant when its writes fail: a value's key, say.
  var flushDescription: String { get }

  /// Writes everything that waits to be written now, and returns once it is written; throws what kept it from
  /// being written. A participant with nothing waiting returns at once; one whose write is under way waits for it.
  /// A cancelled caller may stop waiting and throw `CancellationError`; the writes go on.
  func flush() async throws

  /// Writes everything that waits to be written, synchronously, on the calling thread, before the process ends.
  ///
  /// It runs on the exiting thread (from `atexit`, perhaps the main thread) or on the thread that handles a
  /// termination signal, while every thread of the cooperative pool may be busy, or blocked on something this
  /// thread holds. So it must not await, must not start a task and wait for it, and must not wait for a lock that
  /// code of the program (or any task) may hold across a wait of its own: it captures what waits, under its own
  /// lock, releases that lock, and writes it with blocking system calls. A write already under way on another
  /// thread may be waited for only if it is itself just system calls (the file store's write lock), and the two
  /// writes must land in either order without putting an older state over a newer one.
  ///
  /// A participant whose writes can only be made asynchronously writes nothing here; a program awaits
  /// ``SharedRegistry/flush()`` before it ends instead.
  func flushBeforeExit() throws
}
