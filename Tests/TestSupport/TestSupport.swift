// Helpers shared by the test targets: thread-safe collectors, gates and waits that never sleep.
import Dispatch
import Foundation
import Reactive
package import Testing

/// Collects values from any thread.
package final class Collector<Element: Sendable>: Sendable {
  private let storage = Lock<[Element]>([])

  package init() {}

  package func append(_ element: Element) {
    storage.withLock { $0.append(element) }
  }

  package var elements: [Element] {
    storage.withLock { $0 }
  }
}

/// How long ``waitUntil(_:sourceLocation:)`` waits before it calls a wait a deadlock: twenty minutes, ten times the
/// longest a whole test took in a run beside twelve CPU-bound loops (about two minutes, most of it waiting for a
/// thread). It decides no outcome; it only ends a wait that would never end. The suites' time limits are the same.
package let deadlockGuard = Duration.seconds(1_200)

/// Suspends the calling task, without sleeping, until `condition` holds; records a failure instead of hanging if it
/// never does (see ``deadlockGuard``).
///
/// Between checks the task yields, so the work it waits for (on the same pool) goes on.
package func waitUntil(
  _ condition: () -> Bool,
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  if await !waitedUntil(condition) {
    Issue.record("the awaited condition never held", sourceLocation: sourceLocation)
  }
}

/// Suspends the calling task, without sleeping, until `condition` holds, and returns `true`; returns `false` if it
/// still does not hold after ``deadlockGuard``, for a test that reports the wait's failure itself.
package func waitedUntil(_ condition: () -> Bool) async -> Bool {
  let giveUp = ContinuousClock.now + deadlockGuard
  var checks = 0
  while !condition() {
    checks += 1
    // The clock is read now and then: the guard needs no precision.
    if checks % 1_024 == 0 && ContinuousClock.now > giveUp { return false }
    await Task.yield()
  }
  return true
}

/// A one-shot gate: tasks that wait are held until it opens (and pass at once afterwards).
package final class Gate: Sendable {
  private let state = Lock<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  package init() {}

  package func wait() async {
    await withCheckedContinuation { continuation in
      let passes = state.withLock { state -> Bool in
        if state.isOpen { return true }
        state.waiters.append(continuation)
        return false
      }
      if passes { continuation.resume() }
    }
  }

  package func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}

/// A counter shared by tasks.
package final class Counter: Sendable {
  private let value = Lock(0)

  package init() {}

  @discardableResult
  package func increment() -> Int {
    value.withLock { value in
      value += 1
      return value
    }
  }

  package var count: Int { value.withLock { $0 } }
}

/// Runs `body` on a thread of its own, outside Swift's cooperative pool, and returns its result.
///
/// Work that blocks (a pipe read, waiting for a process) or loops for long without suspending runs here, so it never
/// holds one of the pool's few threads that every other test needs to make progress.
package func onThreadOfItsOwn<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
  await withCheckedContinuation { continuation in
    let thread = Thread { continuation.resume(returning: body()) }
    thread.start()
  }
}

/// Runs each test it is applied to on a serial queue of its own, outside Swift's cooperative pool.
///
/// For tests that compute for long without suspending (exhaustive searches of a state machine): on the cooperative
/// pool, which has as many threads as the machine has cores, they would hold threads that every other test running
/// beside them needs. The test's task keeps its task-local values, so its expectations are its own.
package struct OffTheCooperativePoolTrait: SuiteTrait, TestTrait, TestScoping {
  package var isRecursive: Bool { true }

  package func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    // A suite's own scope runs no test body.
    guard testCase != nil || !test.isSuite else { return try await function() }
    try await withTaskExecutorPreference(SerialQueueExecutor()) {
      try await function()
    }
  }
}

extension Trait where Self == OffTheCooperativePoolTrait {
  /// Runs each test on a serial queue of its own, outside Swift's cooperative pool.
  package static var offTheCooperativePool: Self { Self() }
}

/// Whether the calling code runs on the queue of an ``OffTheCooperativePoolTrait`` test.
package var isOffTheCooperativePool: Bool {
  DispatchQueue.getSpecific(key: SerialQueueExecutor.marker) == true
}

/// A task executor that runs its jobs one at a time on a dispatch queue of its own.
private final class SerialQueueExecutor: TaskExecutor {
  /// Set on every such queue, so that a test can tell where it runs.
  static let marker = DispatchSpecificKey<Bool>()

  private let queue = DispatchQueue(label: "TestSupport.SerialQueueExecutor")

  init() {
    queue.setSpecific(key: Self.marker, value: true)
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}

/// A task executor that runs its jobs one at a time on a dispatch queue of its own and counts the jobs it was given.
///
/// A task that prefers it (`Task(executorPreference:)`) is enqueued here when it starts and each time it is resumed,
/// so the count tells a test whether a suspended task was resumed, without blocking anything: a task whose last
/// step was enqueued before some moment saw every enqueue by then.
package final class CountingExecutor: TaskExecutor {
  private let queue = DispatchQueue(label: "TestSupport.CountingExecutor")
  private let enqueued = Lock(0)

  package init() {}

  /// How many jobs were enqueued so far.
  package var enqueuedJobs: Int { enqueued.withLock { $0 } }

  package func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    enqueued.withLock { $0 += 1 }
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}

/// Whether this build announces its locks to ThreadSanitizer (`-Xswiftc -DREACTIVE_TSAN`).
///
/// Searches over a state machine's orderings run one value type on one thread: ThreadSanitizer has nothing to find in
/// them and slows them from seconds to minutes, so they are skipped in such builds (plain `swift test` runs them).
#if REACTIVE_TSAN
  package let isThreadSanitizerBuild = true
#else
  package let isThreadSanitizerBuild = false
#endif

/// A small seeded random number generator (SplitMix64) for model-based and interleaving tests, so that a failure can
/// be replayed from the seed it prints.
package struct SplitMix: RandomNumberGenerator {
  private var state: UInt64

  package init(seed: UInt64) {
    state = seed
  }

  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }

  /// A number in `0..<bound`.
  package mutating func next(below bound: Int) -> Int {
    Int(next() % UInt64(bound))
  }
}
