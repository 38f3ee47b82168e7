import Dispatch
import Reactive
import SharedState
import Synchronization

/// One change delivered to each of `observers` observers: nanoseconds per observer call.
func boxObserverFanOut(observers: Int, changes: Int) -> Double {
  let box = ReactiveBox(0)
  let calls = AtomicHolder()
  let tokens = (0..<observers).map { _ in box.observe { _ in calls.value.add(1, ordering: .relaxed) } }
  let start = now()
  for _ in 0..<changes { box.withLock { $0 += 1 } }
  let elapsed = Double(now() - start) / Double(observers * changes)
  precondition(calls.value.load(ordering: .relaxed) == observers * changes, "every observer hears every change")
  withExtendedLifetime(tokens) {}
  return elapsed
}

/// Two threads calling `withLock` `operations` times each, on one box or on two: nanoseconds per call.
func contendedIncrements(sameBox: Bool, operations: Int) -> Double {
  let first = ReactiveBox(0)
  let second = sameBox ? first : ReactiveBox(0)
  let group = DispatchGroup()
  let start = now()
  for box in [first, second] {
    group.enter()
    DispatchQueue.global().async {
      for _ in 0..<operations { box.withLock { $0 += 1 } }
      group.leave()
    }
  }
  wait(for: group, "2 threads of \(operations) withLock calls")
  return Double(now() - start) / Double(2 * operations)
}

/// Two threads calling a bare `Mutex` `operations` times each, on one mutex or two: nanoseconds per call.
func contendedMutex(sameMutex: Bool, operations: Int) -> Double {
  let first = MutexHolder()
  let second = sameMutex ? first : MutexHolder()
  let group = DispatchGroup()
  let start = now()
  for holder in [first, second] {
    group.enter()
    DispatchQueue.global().async {
      for _ in 0..<operations { holder.mutex.withLock { $0 += 1 } }
      group.leave()
    }
  }
  wait(for: group, "2 threads of \(operations) Mutex.withLock calls")
  return Double(now() - start) / Double(2 * operations)
}

/// A point of a scaling sweep: the size, the cost per operation, and the memory per item.
struct SweepPoint: Sendable {
  let size: Int
  let nanoseconds: Double
  let bytesPerItem: Double
}

/// New in-memory keys: the cost of adding 1,000 more once `size` exist, and resident bytes per key.
func keySweepPoint(size: Int) -> SweepPoint {
  let registry = SharedRegistry()
  let names = (0..<(size + 1_000)).map { "key-\($0)" }
  let bytes = probeMemory(.keys, count: size)
  return SharedRegistry.$current.withValue(registry) {
    for name in names.prefix(size) { blackHole(Shared(wrappedValue: 0, InMemoryKey<Int>(name))) }
    let start = now()
    for name in names.suffix(1_000) { blackHole(Shared(wrappedValue: 0, InMemoryKey<Int>(name))) }
    return SweepPoint(size: size, nanoseconds: Double(now() - start) / 1_000, bytesPerItem: bytes)
  }
}

/// `size` iterations of one box (`.all`, each consumer hashing every element, see ``ConsumerWork``): the cost per
/// delivery of a change to each, and resident bytes per idle iteration (its registration and buffer; the consumer's
/// own task aside).
func subscriberSweepPoint(size: Int, changes: Int) async -> SweepPoint {
  // Memory: idle registrations, at least 10,000 so that whole pages count, made in a fresh process.
  let bytes = probeMemory(.subscribers, count: max(size, 10_000))
  let cost = await boxFanOut(subscribers: size, changes: changes)
  return SweepPoint(size: size, nanoseconds: cost, bytesPerItem: bytes)
}

/// Resident bytes added by `cycles` create/use/drop cycles of a box with an iteration and an observer, after a
/// warm-up: flat memory means close to zero.
func createDropCycles(_ cycles: Int) -> Double {
  func cycle(_ count: Int) {
    for index in 0..<count {
      let box = ReactiveBox(index)
      let iterator = box.values.makeAsyncIterator()
      let token = box.observe { _ in }
      box.withLock { $0 += 1 }
      withExtendedLifetime((iterator, token)) {}
    }
  }
  cycle(10_000)
  let before = residentBytes()
  cycle(cycles)
  return Double(residentBytes() - before)
}
