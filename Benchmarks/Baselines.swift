import Observation
import Synchronization

/// A bare `Mutex` in a class, the way a box holds its state.
final class MutexHolder: Sendable {
  let mutex = Mutex(0)
}

/// A timestamp written by one task and read by another.
final class Stamp: Sendable {
  let nanoseconds = Atomic<UInt64>(0)
}

/// Bare `Mutex` increments.
func mutexIncrement(_ plan: Plan) -> Measurement {
  let holder = MutexHolder()
  return plan.measure { operations in
    for _ in 0..<operations { holder.mutex.withLock { $0 += 1 } }
  }
}

/// Bare `Mutex` reads.
func mutexRead(_ plan: Plan) -> Measurement {
  let holder = MutexHolder()
  return plan.measure { operations in
    var sum = 0
    for _ in 0..<operations { sum &+= holder.mutex.withLock { $0 } }
    blackHole(sum)
  }
}

/// One `AsyncStream` per subscriber: nanoseconds per value delivered to one subscriber.
func asyncStreamFanOut(subscribers: Int, changes: Int) async -> Double {
  var streams: [AsyncStream<Int>] = []
  var continuations: [AsyncStream<Int>.Continuation] = []
  for _ in 0..<subscribers {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    streams.append(stream)
    continuations.append(continuation)
  }
  let start = Stamp()
  let allContinuations = continuations
  await withTaskGroup(of: Void.self) { group in
    for stream in streams {
      group.addTask {
        for await value in stream where value == changes { break }
      }
    }
    group.addTask {
      start.nanoseconds.store(now(), ordering: .relaxed)
      for value in 1...changes {
        for continuation in allContinuations { continuation.yield(value) }
      }
    }
    await group.waitForAll()
  }
  let elapsed = now() - start.nanoseconds.load(ordering: .relaxed)
  return Double(elapsed) / Double(subscribers * changes)
}

/// A bare `Atomic<Int>` in a class.
final class AtomicHolder: Sendable {
  let value = Atomic<Int>(0)
}

/// Bare `Atomic` adds.
func atomicAdd(_ plan: Plan) -> Measurement {
  let holder = AtomicHolder()
  return plan.measure { operations in
    for _ in 0..<operations { holder.value.add(1, ordering: .relaxed) }
  }
}

/// A bare `@Observable` model.
@Observable
final class ObservableCounter {
  var count = 0
}

/// Bare `@Observable` mutations with nobody observing.
func observableMutation(_ plan: Plan) -> Measurement {
  let model = ObservableCounter()
  return plan.measure { operations in
    for _ in 0..<operations { model.count += 1 }
  }
}
