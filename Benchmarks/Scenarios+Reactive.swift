import Observation
import Reactive
import Synchronization

/// `withLock { $0 += 1 }` on a box nobody listens to.
func boxIncrement() -> (Int) -> Void {
  let box = ReactiveBox(0)
  return { operations in
    for _ in 0..<operations { box.withLock { $0 += 1 } }
  }
}

/// Reading a box's value.
func boxRead() -> (Int) -> Void {
  let box = ReactiveBox(0)
  return { operations in
    var sum = 0
    for _ in 0..<operations { sum &+= box.value }
    blackHole(sum)
  }
}

/// Reading the value of a box Observation has tracked, as a SwiftUI view or an `Observations` sequence leaves it:
/// each read goes through the box's own registrar.
func trackedBoxRead() -> (Int) -> Void {
  let box = ReactiveBox(0)
  _ = withObservationTracking {
    box.value
  } onChange: {
  }
  return { operations in
    var sum = 0
    for _ in 0..<operations { sum &+= box.value }
    blackHole(sum)
  }
}

/// What every consumer of the fan-out scenarios does with each element: hashes it (FNV-1a over its 8 bytes), a
/// little work of the size of updating a piece of view state.
struct ConsumerWork {
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325

  mutating func take(_ value: Int) {
    var bits = UInt64(bitPattern: Int64(value))
    for _ in 0..<8 {
      hash = (hash ^ (bits & 0xff)) &* 0x100_0000_01b3
      bits >>= 8
    }
  }
}

/// The moment the last consumer of a fan-out saw the last change.
final class FanOutFinish: Sendable {
  let remaining: Atomic<Int>
  let nanoseconds = Atomic<UInt64>(0)

  init(consumers: Int) {
    remaining = Atomic(consumers)
  }

  /// Called by each consumer once it has seen the last change; the last one stamps the time.
  func consumerDone() {
    if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
      nanoseconds.store(now(), ordering: .releasing)
    }
  }
}

/// `changes` changes delivered to each of `subscribers` iterations of `values(buffering: policy)`, each consumer
/// doing ``ConsumerWork`` per element: nanoseconds per change and consumer, from the first change until the last
/// consumer has seen the last one.
///
/// The consumers are separate tasks rather than children of one task group: the clock stops before they end, but
/// a task group removes each ending child from a list of all of them, which at 100,000 would take the run seconds.
func boxFanOut(subscribers: Int, changes: Int, buffering policy: BufferingPolicy = .all) async -> Double {
  let box = ReactiveBox(0)
  let finish = FanOutFinish(consumers: subscribers)
  var consumers: [Task<UInt64, Never>] = []
  consumers.reserveCapacity(subscribers)
  for _ in 0..<subscribers {
    consumers.append(
      Task {
        var work = ConsumerWork()
        for await value in box.values(buffering: policy) {
          work.take(value)
          if value == changes { break }
        }
        finish.consumerDone()
        return work.hash
      })
  }
  await waitUntil("\(subscribers) subscribers, saw \(box.subscriberCount)") { box.subscriberCount >= subscribers }
  let start = now()
  for _ in 0..<changes { box.withLock { $0 += 1 } }
  var hashes: UInt64 = 0
  for consumer in consumers { hashes ^= await consumer.value }
  blackHole(hashes)
  let elapsed = finish.nanoseconds.load(ordering: .acquiring) - start
  return Double(elapsed) / Double(subscribers * changes)
}

/// The fan-out measurements of one buffering policy: 100 AsyncStreams, 100 consumers and 10,000 consumers, timed
/// in alternating repetitions so that the rows comparing them see the same machine.
///
/// Every consumer gets the same number of changes whatever their count, and each sample delivers about as many
/// values in all (several rounds of 100 consumers, one of 10,000), so the rows compare cost per delivery alone.
struct FanOutMeasurements {
  let streams: Measurement
  let hundred: Measurement
  let tenThousand: Measurement
}

/// The fan-out measurements, each made once however many rows show it.
@MainActor
final class FanOutRows {
  let plan: Plan
  let changes: Int
  /// Deliveries per sample of the box, and of the AsyncStreams (ten times slower, so fewer).
  let deliveries: Int
  let streamDeliveries: Int
  private var measured: [String: FanOutMeasurements] = [:]

  init(quick: Bool, plan: Plan) {
    self.plan = plan
    changes = quick ? 50 : 100
    deliveries = quick ? 500_000 : 1_000_000
    streamDeliveries = quick ? 50_000 : 100_000
  }

  /// Nanoseconds per delivery to 100 AsyncStreams, 100 and 10,000 iterations of `values(buffering: policy)`.
  func measurements(_ policy: BufferingPolicy) async -> FanOutMeasurements {
    let key = "\(policy)"
    if let known = measured[key] { return known }
    var streams: [Double] = []
    var hundred: [Double] = []
    var tenThousand: [Double] = []
    for repetition in 0..<(plan.warmUps + plan.repetitions) {
      let stream = await streamSample(policy)
      let small = await boxSample(consumers: 100, policy)
      let large = await boxSample(consumers: 10_000, policy)
      guard repetition >= plan.warmUps else { continue }
      streams.append(stream)
      hundred.append(small)
      tenThousand.append(large)
    }
    let result = FanOutMeasurements(
      streams: Measurement(samples: streams), hundred: Measurement(samples: hundred),
      tenThousand: Measurement(samples: tenThousand))
    measured[key] = result
    return result
  }

  private func boxSample(consumers: Int, _ policy: BufferingPolicy) async -> Double {
    let rounds = max(1, deliveries / (consumers * changes))
    var total = 0.0
    for _ in 0..<rounds { total += await boxFanOut(subscribers: consumers, changes: changes, buffering: policy) }
    return total / Double(rounds)
  }

  private func streamSample(_ policy: BufferingPolicy) async -> Double {
    let rounds = max(1, streamDeliveries / (100 * changes))
    var total = 0.0
    for _ in 0..<rounds {
      total += await asyncStreamFanOut(subscribers: 100, changes: changes, newest: policy != .all)
    }
    return total / Double(rounds)
  }
}
