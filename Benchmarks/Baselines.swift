import Observation
import Synchronization

/// A bare `Mutex` in a class, the way a box holds its state.
final class MutexHolder: Sendable {
  let mutex = Mutex(0)
}

/// Bare `Mutex` increments.
func mutexIncrement() -> (Int) -> Void {
  let holder = MutexHolder()
  return { operations in
    for _ in 0..<operations { holder.mutex.withLock { $0 += 1 } }
  }
}

/// Bare `Mutex` reads.
func mutexRead() -> (Int) -> Void {
  let holder = MutexHolder()
  return { operations in
    var sum = 0
    for _ in 0..<operations { sum &+= holder.mutex.withLock { $0 } }
    blackHole(sum)
  }
}

/// One `AsyncStream` per subscriber, each consumer doing ``ConsumerWork`` per element: nanoseconds per change and
/// consumer, from the first change until the last consumer has seen the last one (measured like ``boxFanOut``).
///
/// - Parameter newest: Whether each stream keeps only its newest element (as `.latest` does) rather than all.
func asyncStreamFanOut(subscribers: Int, changes: Int, newest: Bool = false) async -> Double {
  let finish = FanOutFinish(consumers: subscribers)
  var continuations: [AsyncStream<Int>.Continuation] = []
  var consumers: [Task<UInt64, Never>] = []
  continuations.reserveCapacity(subscribers)
  consumers.reserveCapacity(subscribers)
  for _ in 0..<subscribers {
    let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: newest ? .bufferingNewest(1) : .unbounded)
    continuations.append(continuation)
    consumers.append(
      Task {
        var work = ConsumerWork()
        for await value in stream {
          work.take(value)
          if value == changes { break }
        }
        finish.consumerDone()
        return work.hash
      })
  }
  let start = now()
  for value in 1...changes {
    for continuation in continuations { continuation.yield(value) }
  }
  var hashes: UInt64 = 0
  for consumer in consumers { hashes ^= await consumer.value }
  blackHole(hashes)
  let elapsed = finish.nanoseconds.load(ordering: .acquiring) - start
  return Double(elapsed) / Double(subscribers * changes)
}

/// One change handed to each of `observers` closures kept in an array under a `Mutex` (the value changed and the
/// array read under the lock, the closures called after it): nanoseconds per closure call.
func closureFanOut(observers: Int, changes: Int) -> Double {
  let calls = AtomicHolder()
  let state = ClosureList(closures: (0..<observers).map { _ in { (_: Int) in calls.value.add(1, ordering: .relaxed) } })
  let start = now()
  for _ in 0..<changes {
    let (value, closures) = state.mutex.withLock { state in
      state.value += 1
      return (state.value, state.closures)
    }
    for closure in closures { closure(value) }
  }
  let elapsed = Double(now() - start) / Double(observers * changes)
  precondition(calls.value.load(ordering: .relaxed) == observers * changes, "every closure hears every change")
  return elapsed
}

/// A value and the closures to call when it changes, under one `Mutex`.
final class ClosureList: Sendable {
  struct State {
    var value = 0
    var closures: [@Sendable (Int) -> Void]
  }

  let mutex: Mutex<State>

  init(closures: [@Sendable (Int) -> Void]) {
    mutex = Mutex(State(closures: closures))
  }
}

/// A bare `Atomic<Int>` in a class.
final class AtomicHolder: Sendable {
  let value = Atomic<Int>(0)
}

/// Bare `Atomic` adds.
func atomicAdd() -> (Int) -> Void {
  let holder = AtomicHolder()
  return { operations in
    for _ in 0..<operations { holder.value.add(1, ordering: .relaxed) }
  }
}

/// A bare `@Observable` model.
@Observable
final class ObservableCounter {
  var count = 0
}

/// Bare `@Observable` mutations with nobody observing.
func observableMutation() -> (Int) -> Void {
  let model = ObservableCounter()
  return { operations in
    for _ in 0..<operations { model.count += 1 }
  }
}
