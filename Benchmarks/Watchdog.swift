import Foundation
import SharedState
import Synchronization

/// The deadlines of everything the benchmarks wait for: a run that cannot go on ends, naming the scenario that did
/// not finish, instead of spinning for good.
///
/// Two kinds of wait have a deadline:
/// - Each scenario, sweep and figure runs under one (``run(_:_:)``), watched by a thread of its own: not a task, since
///   a scenario that spins may hold every thread of the cooperative pool. It covers every wait inside, including the
///   ones that cannot look at a clock themselves (a task's value, a `for await` loop, a child process).
/// - Each loop that polls for a condition (``waitUntil(_:_:)``) checks a deadline of its own, half the scenario's, on
///   every turn, and says what it waited for and how far it got.
///
/// Either way the run prints `error: "<scenario>" did not finish: <what>` on standard error and exits with status 2
/// (`--check`'s over-budget status is 1).
final class Watchdog: Sendable {
  static let shared = Watchdog()

  private struct State {
    /// How long one scenario may take.
    var limit = Duration.seconds(120)
    /// What runs now, and until when it may (in ``now()`` nanoseconds); `nil` between scenarios.
    var current: (name: String, deadline: UInt64)?
    /// A child process to end with the run, if one runs.
    var child: Int32?
    var isWatching = false
  }

  private let state = Mutex(State())

  /// Sets how long a scenario may take, and starts watching.
  func start(limit: Duration) {
    let starts = state.withLock { state -> Bool in
      state.limit = limit
      defer { state.isWatching = true }
      return !state.isWatching
    }
    guard starts else { return }
    let thread = Thread { Watchdog.shared.watch() }
    thread.name = "Benchmarks watchdog"
    thread.start()
  }

  /// How long one polling wait may take: half a scenario's limit.
  var waitLimit: Duration {
    state.withLock { $0.limit } / 2
  }

  /// Runs `body` as `name`, which must finish within the scenario limit.
  func run<Result>(
    _ name: String,
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async -> Result
  ) async -> Result {
    begin(name)
    defer { end() }
    return await body()
  }

  /// Ends `process` too if the run is ended while it runs; `nil` once it ended.
  func track(child process: Int32?) {
    state.withLock { $0.child = process }
  }

  /// Ends the run: what runs now did not finish, because of `what`.
  func fail(_ what: String) -> Never {
    let (name, child) = state.withLock { ($0.current?.name ?? "the run", $0.child) }
    if let child { kill(child, SIGKILL) }
    FileHandle.standardError.write(Data("error: \"\(name)\" did not finish: \(what)\n".utf8))
    fflush(nil)  // Every output stream: what the run printed so far.
    // Not `exit`: its handlers could wait for what is stuck.
    _exit(2)
  }

  private func begin(_ name: String) {
    state.withLock { state in
      state.current = (name, now() + Self.nanoseconds(state.limit))
    }
  }

  private func end() {
    state.withLock { $0.current = nil }
  }

  private func watch() {
    while true {
      Thread.sleep(forTimeInterval: 0.25)
      let expired = state.withLock { state -> Duration? in
        guard let current = state.current, now() > current.deadline else { return nil }
        return state.limit
      }
      if let limit = expired { fail("still running after \(limit) (--deadline sets the limit)") }
    }
  }

  static func nanoseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
  }
}

/// Yields until `condition` holds; if it still does not after the wait's limit, ends the run, saying what it
/// waited for (`what`, read then, may tell how far it got).
func waitUntil(
  isolation: isolated (any Actor)? = #isolation,
  _ what: @autoclosure () -> String,
  _ condition: () -> Bool
) async {
  let giveUp = now() + Watchdog.nanoseconds(Watchdog.shared.waitLimit)
  while !condition() {
    if now() > giveUp { Watchdog.shared.fail("waited \(Watchdog.shared.waitLimit) for \(what())") }
    await Task.yield()
  }
}

/// Waits until `count` tasks sleep on `clock`, within the wait's limit.
func waitForSleepers(_ count: Int, on clock: ManualClock) async {
  await waitUntil("\(count) sleepers on the manual clock, saw \(clock.sleeperCount)") { clock.sleeperCount >= count }
}

/// Waits for `group` within the wait's limit, saying what it waited for if it does not end.
func wait(for group: DispatchGroup, _ what: String) {
  let limit = Watchdog.shared.waitLimit
  if group.wait(timeout: .now() + .nanoseconds(Int(Watchdog.nanoseconds(limit)))) == .timedOut {
    Watchdog.shared.fail("waited \(limit) for \(what)")
  }
}
