import SharedState
import TestSupport

/// One thing an app does to the store, or one thing the world does to the app (a server answers, time passes, the
/// network drops), in a simulated program.
///
/// Every payload that picks something (a key, a holder, a fetch under way) is taken modulo what exists when the step
/// runs, so any subsequence of a program is a program too: the shrinker drops steps freely.
enum SimulationStep: Hashable, Sendable, CustomStringConvertible {
  /// A new `@Shared` holder of query `key`.
  case hold(key: Int)
  /// The newest holder of query `key` lets go.
  case release(key: Int)
  /// The server answers the fetch under way picked by `pick` (oldest first), with its data or an error.
  case answerFetch(pick: Int, succeeds: Bool)
  /// `store.invalidate(.exactly(key))`.
  case invalidate(key: Int)
  /// `store.invalidate(matching: ["sim"])`.
  case invalidateAll
  /// `store.invalidate(.prefix(["sim"]).matching { $0.status == .error || $0.isStale })`: a filter over what each
  /// query shows.
  case invalidateFailedOrStale
  /// `store.cancel(.exactly(key))`.
  case cancel(key: Int)
  /// `store.remove(.exactly(key))`.
  case remove(key: Int)
  /// `store.reset(.exactly(key))`.
  case reset(key: Int)
  /// `store.update(key) { $0.value?.append(edit) }`.
  case update(key: Int)
  /// The newest holder of `key`: `withLock { $0.value?.append(edit) }`.
  case editThroughHolder(key: Int)
  /// `store.setFetchedValue([edit], for: query(key))`.
  case setValue(key: Int)
  /// The clock moves on by `ticks` ticks, the program settling after each.
  case advance(ticks: Int)
  /// The device goes online or offline.
  case setOnline(Bool)
  /// `$mutation[state].mutate(item, policy:, scope:, invalidates: [key], optimistic: append item to key)`.
  case mutate(key: Int, state: Int, policy: SimulatedPolicy, scoped: Bool)
  /// The server answers the mutation call under way picked by `pick`, applying its item or refusing it.
  case answerMutation(pick: Int, succeeds: Bool)
  /// The app cancels the task of the unfinished mutation picked by `pick`.
  case cancelMutation(pick: Int)
  /// The app ends (its mutations cancelled, its persisted cache flushed) and launches again: a new registry whose
  /// store restores the cache from the bytes written, on a new clock.
  case relaunch
  /// The mutation queue: see `SimulationQueueStep`.
  case queue(SimulationQueueStep)
  /// The app becomes active (`true`) or inactive, as a `ManualFocus` the store follows tells it.
  case focus(Bool)
  /// A list of queries, an observer of a derived value, or the inspector: see `SimulationHolderStep`.
  case holders(SimulationHolderStep)

  var description: String {
    switch self {
    case .hold(let key): "hold q\(key)"
    case .release(let key): "release a holder of q\(key)"
    case .answerFetch(let pick, let succeeds): "server answers fetch #\(pick) with \(succeeds ? "data" : "an error")"
    case .invalidate(let key): "invalidate q\(key)"
    case .invalidateAll: "invalidate every query"
    case .invalidateFailedOrStale: "invalidate by a filter the queries showing an error or stale"
    case .cancel(let key): "cancel q\(key)"
    case .remove(let key): "remove q\(key)"
    case .reset(let key): "reset q\(key)"
    case .update(let key): "store.update q\(key) (append an edit)"
    case .editThroughHolder(let key): "holder.withLock on q\(key) (append an edit)"
    case .setValue(let key): "store.setFetchedValue on q\(key)"
    case .advance(let ticks): "advance the clock \(ticks) tick\(ticks == 1 ? "" : "s")"
    case .setOnline(let online): online ? "go online" : "go offline"
    case .mutate(let key, let state, let policy, let scoped):
      "mutate m\(state) (\(policy)\(scoped ? ", scoped" : "")) appending optimistically to q\(key)"
    case .answerMutation(let pick, let succeeds):
      "server answers mutation call #\(pick): \(succeeds ? "applied" : "refused")"
    case .cancelMutation(let pick): "cancel unfinished mutation #\(pick)"
    case .relaunch: "flush the persisted cache, end the app and launch it again"
    case .queue(let step): "\(step)"
    case .focus(let isFocused): isFocused ? "the app becomes active" : "the app becomes inactive"
    case .holders(let step): "\(step)"
    }
  }
}

/// The operation policies the simulation uses for mutations.
enum SimulatedPolicy: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  case parallel, serial, cancelPrevious, dedupe, debounce, debounceCancellingPrevious

  /// The policies every run starts at once with (the debounced ones wait ``SimulationSetup/debounceInterval``).
  static let undelayed: [SimulatedPolicy] = [.parallel, .serial, .cancelPrevious, .dedupe]

  var policy: OperationPolicy {
    switch self {
    case .parallel: .parallel
    case .serial: .serial
    case .cancelPrevious: .cancelPrevious
    case .dedupe: .dedupe
    case .debounce: .debounce(SimulationSetup.debounceInterval)
    case .debounceCancellingPrevious: .debounceCancellingPrevious(SimulationSetup.debounceInterval)
    }
  }

  /// Whether a run waits out a quiet time, and is dropped when another run of its state follows within it.
  var isDebounced: Bool { self == .debounce || self == .debounceCancellingPrevious }

  var description: String { rawValue }
}

/// What a simulated program may use, so that a suite can leave out what a known defect breaks.
struct SimulationFeatures: Sendable {
  /// Each query takes a gcTime of its own (mixed), or all share one drawn from the seed.
  var mixedGCTimes = false
  /// Optimistic mutations.
  var mutations = false
  /// A persisted query cache, and relaunches that restore it.
  var relaunches = false
  /// Edits through a holder's `withLock` (else through `store.update`).
  var holderEdits = true
  /// In-place edits (`update`, `withLock`) and set values at all (else the program invalidates instead).
  var edits = true
  /// Whether a value restored at a relaunch must show the `updatedAt` it was stored with, exactly.
  var checksRestoredDates = false
  /// The policies mutations use.
  var policies = SimulatedPolicy.undelayed
  /// The mutation queue: entries queued with an optimistic change, discarded, answered, flushed, and crashes at any
  /// write of its file followed by a relaunch (with the persisted query cache, when `relaunches`).
  var queue = false
  /// Each mutation state keeps one policy (state `s` uses `policies[s % policies.count]`), else each run draws one.
  var policyPerState = false
  /// Queries refetch on an interval (drawn from the seed, as is whether they refetch while unheld).
  var intervals = false
  /// The store follows a `ManualFocus`, and the app becomes active and inactive.
  var focus = false
  /// The program holds a list of queries (`QueriesHolder`) and loads other lists into it.
  var holderLists = false
  /// The program registers observers of values derived from its holders (a member, a selection, a reader's member,
  /// an unwrapped member), some while their value changes.
  var derivedObservers = false
  /// The inspector forces queries into an error or loading, refetches and restores them.
  var inspector = false
  /// How many steps a program has.
  var length = 60

  static let queries = SimulationFeatures()
}

/// The settings of one simulated program: its queries' options, drawn from the seed.
struct SimulationSetup: Sendable, CustomStringConvertible {
  /// A tick of the manual clock: the simulation settles after each.
  static let tick = Duration.milliseconds(50)
  static let keyCount = 3
  static let staleTimes: [Duration] = [.zero, .milliseconds(300), .seconds(3_600)]
  /// Multiples of four ticks, so that the garbage checks (every gcTime / 4) fall on ticks.
  static let gcTimes: [Duration] = [.milliseconds(200), .seconds(1), .seconds(2)]
  /// Refetch intervals: not multiples of a tick's length apart from the first, so that ticks fall on every phase.
  static let refetchIntervals: [Duration] = [.milliseconds(250), .milliseconds(600)]
  /// The quiet time of debounced mutations: between ticks, so that a run is surely dropped or surely started when
  /// the program makes the next one.
  static let debounceInterval = Duration.milliseconds(120)

  var staleTimes: [Duration]
  var gcTimes: [Duration]
  /// Whether the store persists its query cache (the programs that relaunch).
  var persistsCache = false
  /// Whether the persisted cache's persister appends each write's changes (half the seeds), or takes the whole cache.
  var appendsCache = false
  /// Whether a restored value must show the `updatedAt` it was stored with.
  var checksRestoredDates = false
  /// Whether the app keeps a mutation queue.
  var usesQueue = false
  /// Every query's `refetchInterval`, and whether the interval refetches it while unheld.
  var refetchInterval: Duration?
  var refetchesWhileUnheld = false
  /// Whether the interval refetches every query while the app is inactive too (`refetchIntervalInBackground`).
  var refetchesIntervalInBackground = false
  /// Whether the store follows a `ManualFocus`.
  var followsFocus = false
  /// Whether each launch restores the queue before it restores the persisted cache (the other launch order).
  var restoresQueueFirst = false
  /// Whether the server answers some fetches with the data it sent last for the query, when that data did not
  /// change (see `SimulatedServer.answerFetch`): refetches that bring a value equal to the one shown, which structural
  /// sharing keeps.
  var repeatsAnswers = false

  var description: String {
    (0..<Self.keyCount).map { "q\($0): staleTime \(staleTimes[$0]), gcTime \(gcTimes[$0])" }.joined(separator: "; ")
      + (persistsCache ? "; the query cache persisted\(appendsCache ? ", appending" : "")" : "")
      + (usesQueue ? "; a mutation queue" : "")
      + (refetchInterval.map { "; refetchInterval \($0)\(refetchesWhileUnheld ? ", also while unheld" : "")" } ?? "")
      + (refetchesIntervalInBackground ? "; the interval also in the background" : "")
      + (followsFocus ? "; refetches on focus" : "")
      + (restoresQueueFirst ? "; the queue restored before the cache" : "")
      + (repeatsAnswers ? "; the server repeats unchanged answers" : "")
  }
}

/// A seeded program: its setup and its steps.
struct SimulationProgram: Sendable {
  var seed: UInt64
  var setup: SimulationSetup
  var steps: [SimulationStep]

  /// The program a seed makes: the same seed gives the same program.
  init(seed: UInt64, features: SimulationFeatures) {
    self.seed = seed
    var random = SplitMix(seed: seed)
    let keys = SimulationSetup.keyCount
    let staleTimes = (0..<keys).map { _ in SimulationSetup.staleTimes[random.next(below: 3)] }
    let shared = SimulationSetup.gcTimes[random.next(below: 3)]
    let gcTimes = (0..<keys).map { _ in
      features.mixedGCTimes ? SimulationSetup.gcTimes[random.next(below: 3)] : shared
    }
    setup = SimulationSetup(
      staleTimes: staleTimes, gcTimes: gcTimes, persistsCache: features.relaunches,
      checksRestoredDates: features.checksRestoredDates, usesQueue: features.queue)
    if features.intervals {
      setup.refetchInterval = SimulationSetup.refetchIntervals[random.next(below: 2)]
      setup.refetchesWhileUnheld = random.next(below: 2) == 0
    }
    setup.followsFocus = features.focus
    // From the seed, as below: only the programs with both intervals and focus draw it.
    setup.refetchesIntervalInBackground = features.intervals && features.focus && seed & 2 == 0
    // From the seed, not the random stream, so that the programs of other seeds stay as they were.
    setup.appendsCache = seed & 1 == 0
    setup.repeatsAnswers = seed & 4 == 0
    steps = (0..<features.length).map { _ in Self.step(&random, features: features) }
    // Drawn last, so that a seed's steps stay what they were before the launch order was drawn.
    setup.restoresQueueFirst = features.queue && features.relaunches && random.next(below: 2) == 0
  }

  init(seed: UInt64, setup: SimulationSetup, steps: [SimulationStep]) {
    self.seed = seed
    self.setup = setup
    self.steps = steps
  }

  private static func step(_ random: inout SplitMix, features: SimulationFeatures) -> SimulationStep {
    let key = random.next(below: SimulationSetup.keyCount)
    let pick = random.next(below: 4)
    let coin = random.next(below: 4) != 0  // Three in four succeed.
    if features.relaunches && random.next(below: 40) == 0 { return .relaunch }
    if features.queue, let step = SimulationQueueStep.draw(&random, key: key, pick: pick, succeeds: coin) {
      return .queue(step)
    }
    if features.focus && random.next(below: 10) == 0 { return .focus(random.next(below: 2) == 0) }
    if features.holderLists || features.derivedObservers || features.inspector,
      let step = SimulationHolderStep.draw(&random, features: features, key: key)
    {
      return .holders(step)
    }
    let roll = random.next(below: features.mutations ? 100 : 78)
    switch roll {
    case 0..<14: return .hold(key: key)
    case 14..<22: return .release(key: key)
    case 22..<40: return .answerFetch(pick: pick, succeeds: coin)
    case 40..<44: return .invalidate(key: key)
    // One in four of these invalidations goes by a filter over the queries' status: drawn from `pick`, so that
    // the random stream, and every other step of a seed's program, stays what it was.
    case 44..<46: return pick == 0 ? .invalidateFailedOrStale : .invalidateAll
    case 46..<49: return .cancel(key: key)
    case 49..<51: return .remove(key: key)
    case 51..<53: return .reset(key: key)
    case 53..<63 where !features.edits: return .invalidate(key: key)
    case 53..<57: return .update(key: key)
    case 57..<61: return features.holderEdits ? .editThroughHolder(key: key) : .update(key: key)
    case 61..<63: return .setValue(key: key)
    case 63..<72: return .advance(ticks: [1, 2, 5, 20, 50][random.next(below: 5)])
    case 72..<78: return .setOnline(random.next(below: 3) != 0)
    case 78..<88:
      var policy = features.policies[random.next(below: features.policies.count)]
      // A joined run (dedupe) is a run under way; keep it out of scopes, where "under way" includes waiting.
      let scoped = policy != .dedupe && random.next(below: 3) == 0
      let state = random.next(below: 2)
      if features.policyPerState { policy = features.policies[state % features.policies.count] }
      return .mutate(key: key, state: state, policy: policy, scoped: scoped && !policy.isDebounced)
    case 88..<97: return .answerMutation(pick: pick, succeeds: coin)
    default: return .cancelMutation(pick: pick)
    }
  }

  /// The program as lines a person reads: the seed, the setup and each step numbered.
  var listing: String {
    var lines = ["seed \(seed): \(setup)"]
    for (index, step) in steps.enumerated() { lines.append("  \(index + 1). \(step)") }
    return lines.joined(separator: "\n")
  }
}
