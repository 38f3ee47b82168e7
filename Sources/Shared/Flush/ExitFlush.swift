import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes what waits to be saved before the process ends: at a normal exit (an `atexit` handler, installed when the
/// first value whose key saves is made), and at SIGTERM or SIGINT once the program asked for it
/// (``SharedRegistry/flushOnTermination()``).
///
/// ## Why the flush at exit cannot deadlock
///
/// `atexit` handlers run on the thread that calls `exit` (the main thread when the top-level code returns), and
/// the other threads keep running until the process is gone: tasks of the cooperative pool may be mid-save, or
/// every thread of the pool may be busy with work that never yields. So the flush waits for no task and no actor:
/// - It asks each participant, on this thread, to write what waits (``FlushParticipant/flushBeforeExit()``). A value
///   takes its newest unsaved change under its own lock, releases the lock, encodes the change and writes it with
///   blocking system calls through the file's durable write path (temporary file, `fsync`, rename, `fsync` of the
///   folder): the same path a save takes, called directly instead of through the file's actor.
/// - The only lock it may wait for held by another thread is the file's write lock, which a save holds only for the
///   system calls of one write and never across a wait or code of the program; so the wait ends when that write
///   does, whatever the pool is doing. The save under way and the exit's write then land in either order: each
///   carries its change's number, and the file skips a change no newer than one it holds (``FileWriteOrder``).
/// - Every other lock it takes (this one, a registry's list, a value's) is held by others only for a few
///   instructions, with no code of the program inside. The exiting thread itself holds none of them when it calls
///   `exit` (the library calls no code of the program under a lock of its own), except when the program calls
///   `exit` from inside a value's `withLock` or from its `==` or `hash(into:)`, which it must not do; the change
///   made inside such a `withLock` has not reached the value's save yet, and would not be written anyway.
///
/// What cannot be covered: a change another thread makes while the flush runs (it races with the end of the
/// process), a key whose save can only be made asynchronously (the program awaits ``SharedRegistry/flush()`` for
/// those), a change whose save failed (``Shared/saveError`` told the program), and a process that ends without
/// running `atexit` handlers (SIGKILL, `_exit`, a crash): then at most one save delay of changes is lost, never a
/// whole file, since every write replaces the file atomically.
enum ExitFlush {
  private struct State {
    /// The participant lists of every registry that has had one, held weakly (each is kept alive by its registry
    /// and its members).
    var lists: [WeakList] = []
    /// The count above which lists that are gone are next dropped.
    var pruneAbove = 64
    var isInstalled = false
    /// The program is exiting: a termination signal that arrives now lets that exit finish with its own status.
    var isExiting = false
    /// The termination signals' sources, kept for the life of the process.
    var signalSources: [any DispatchSourceSignal] = []
    /// Left by each source once it is installed; `nil` until the sources are made.
    var signalsInstalled: DispatchGroup?
  }

  private struct WeakList {
    weak var list: FlushParticipants?
  }

  private static let state = Lock(State())
  private static let signalQueue = DispatchQueue(label: "SharedState.ExitFlush.signals")

  /// Includes `list` in the flush at exit; installs the `atexit` handler with the first list.
  static func watch(_ list: FlushParticipants) {
    let install = state.withLock { state -> Bool in
      if state.lists.count > state.pruneAbove {
        // A list's deinit runs no code of the program: dropping lists that are gone under the lock is harmless.
        state.lists.removeAll { $0.list == nil }
        state.pruneAbove = max(64, state.lists.count * 2)
      }
      state.lists.append(WeakList(list: list))
      defer { state.isInstalled = true }
      return !state.isInstalled
    }
    if install { atexit { ExitFlush.programExits() } }
  }

  /// The `atexit` handler.
  private static func programExits() {
    state.withLock { $0.isExiting = true }
    flushEverything()
  }

  /// Writes, on the calling thread, everything every participant of every registry has waiting; a failure is told
  /// on standard error, since nobody is left to catch it.
  static func flushEverything() {
    let lists = state.withLock { state in state.lists.compactMap(\.list) }
    for list in lists {
      for participant in list.current {
        do {
          try participant.flushBeforeExit()
        } catch {
          let message = "warning: \(participant.flushDescription) was not saved before the program ended: \(error)\n"
          FileHandle.standardError.write(Data(message.utf8))
        }
      }
    }
  }

  /// Handles SIGTERM and SIGINT from now on: each flushes, then exits with status 128 + the signal's number.
  /// Returns once both are handled; calling it again does nothing more.
  ///
  /// A signal source is installed after `resume()` returns, on a thread of dispatch's (on Linux, that is when
  /// dispatch replaces the ignored disposition set here with its own handler); a signal that arrives before then
  /// is ignored. So the call waits until each source tells, through its registration handler, that it is
  /// installed: a handful of microseconds, on dispatch's threads, never on the cooperative pool. The wait has a
  /// limit only so that a platform that never installs a source cannot hang the program's launch.
  static func handleTerminationSignals() {
    let installed = state.withLock { state -> DispatchGroup in
      if let installed = state.signalsInstalled { return installed }
      let installed = DispatchGroup()
      for number in [SIGTERM, SIGINT] {
        // The signal no longer ends the process by itself: the source below hears it and ends it after the flush.
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: signalQueue)
        source.setEventHandler { ExitFlush.terminate(by: number) }
        installed.enter()
        source.setRegistrationHandler { installed.leave() }
        source.resume()
        state.signalSources.append(source)
      }
      state.signalsInstalled = installed
      return installed
    }
    // Outside the lock: the registration handlers take no lock, but a second caller waits here too.
    _ = installed.wait(timeout: .now() + .seconds(10))
  }

  /// A termination signal arrived: flush, then exit with the conventional status, unless the program is exiting
  /// already (its exit then ends the process, with its flush and its status).
  private static func terminate(by number: Int32) {
    flushEverything()
    guard !state.withLock({ $0.isExiting }) else { return }
    exit(128 + number)
  }
}
