/// The one garbage sweeper a store runs for its queries on one clock, as the store's lock keeps it.
///
/// The sweeper sleeps for its ``pace`` between checks, and each check sets the pace to what its queries need next
/// (``QueryRecordMachine/nextGCCheck(now:gcTime:interval:)``). A new query that needs a check sooner than the pace
/// the sweeper sleeps for replaces the sweeper's task with one that checks at once: one task per clock, whatever the
/// queries' `gcTime`s, and no query waits for a sweeper armed for another's.
struct QuerySweeper {
  /// How many of the store's queries measure their time on the clock.
  var count = 1
  /// Which task checks: a task that another replaced stops at its next batch.
  private(set) var generation: UInt64
  /// The time every check reads: kept when a task replaces another, so that the times the records keep compare.
  let stopwatch: Stopwatch
  /// The longest the sweeper sleeps before its next check; zero while a check is due at once.
  var pace: Duration
  /// The task that checks, cancelled when another replaces it; `nil` until its starter keeps it.
  private var task: Task<Void, Never>?

  /// What a starter runs after the store's lock: a task of `generation` measuring on `stopwatch`, whose first check
  /// comes after `firstWait` (at once when zero), replacing `replaced`.
  struct Start {
    let generation: UInt64
    let stopwatch: Stopwatch
    let firstWait: Duration
    let replaced: Task<Void, Never>?
  }

  /// A sweeper for a first query, measuring on `stopwatch`, whose first check comes after `interval`.
  init(generation: UInt64, stopwatch: Stopwatch, interval: Duration) {
    self.generation = generation
    self.stopwatch = stopwatch
    self.pace = interval
  }

  /// What starts the sweeper's first task.
  var start: Start {
    Start(generation: generation, stopwatch: stopwatch, firstWait: pace, replaced: nil)
  }

  /// A query that needs a check every `interval` joins the clock: when the sweeper sleeps longer than that, a task
  /// of `generation` replaces its task and checks at once.
  mutating func added(interval: Duration, generation next: UInt64) -> Start? {
    count += 1
    guard interval < pace else { return nil }
    let replaced = task
    generation = next
    pace = .zero
    task = nil
    return Start(generation: generation, stopwatch: stopwatch, firstWait: .zero, replaced: replaced)
  }

  /// Keeps `task`, started for `generation`; returns whether another replaced it meanwhile (cancel it then).
  mutating func keep(_ task: Task<Void, Never>, generation: UInt64) -> Bool {
    guard generation == self.generation else { return true }
    self.task = task
    return false
  }

  /// Whether the task of `generation` is the one that checks.
  func isCurrent(_ generation: UInt64) -> Bool {
    generation == self.generation
  }
}
