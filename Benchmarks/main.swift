import Reactive
import Synchronization

let iterations = 5_000_000

final class MutexHolder: Sendable { let mutex = Mutex(0) }

func measure(_ name: String, repetitions: Int = 5, _ body: () -> Void) -> Double {
  var samples: [Double] = []
  for _ in 0..<repetitions {
    let start = now()
    body()
    samples.append(Double(now() - start) / Double(iterations))
  }
  samples.sort()
  let median = samples[samples.count / 2]
  print(name, median)
  return median
}

@inline(never) func run() {
  let holder = MutexHolder()
  _ = measure("mutex") { for _ in 0..<iterations { holder.mutex.withLock { $0 += 1 } } }
  let box = ReactiveBox(0)
  _ = measure("box withLock") { for _ in 0..<iterations { box.withLock { $0 += 1 } } }
  _ = measure("mutex read") { var s = 0; for _ in 0..<iterations { s &+= holder.mutex.withLock { $0 } }; blackHole(s) }
  _ = measure("box read") { var s = 0; for _ in 0..<iterations { s &+= box.value }; blackHole(s) }
}
run()

func fanOutBox(subscribers: Int, changes: Int) async -> Double {
  let box = ReactiveBox(0)
  let start = Stamp()
  await withTaskGroup(of: Void.self) { group in
    for _ in 0..<subscribers {
      group.addTask {
        for await value in box.values(buffering: .all) where value == changes { break }
      }
    }
    while box.subscriberCount < subscribers { await Task.yield() }
    group.addTask {
      start.value.store(now(), ordering: .relaxed)
      for _ in 0..<changes { box.withLock { $0 += 1 } }
    }
    await group.waitForAll()
  }
  let elapsed = now() - start.value.load(ordering: .relaxed)
  return Double(elapsed) / Double(subscribers * changes)
}

func fanOutStreams(subscribers: Int, changes: Int) async -> Double {
  var continuations: [AsyncStream<Int>.Continuation] = []
  var streams: [AsyncStream<Int>] = []
  for _ in 0..<subscribers {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    streams.append(stream)
    continuations.append(continuation)
  }
  let start = Stamp()
  let all = continuations
  await withTaskGroup(of: Void.self) { group in
    for stream in streams {
      group.addTask {
        for await value in stream where value == changes { break }
      }
    }
    group.addTask {
      start.value.store(now(), ordering: .relaxed)
      for value in 1...changes { for c in all { c.yield(value) } }
    }
    await group.waitForAll()
  }
  let elapsed = now() - start.value.load(ordering: .relaxed)
  return Double(elapsed) / Double(subscribers * changes)
}

for _ in 0..<3 {
  print("box fan-out 100", await fanOutBox(subscribers: 100, changes: 10_000))
  print("stream fan-out 100", await fanOutStreams(subscribers: 100, changes: 10_000))
}

final class Stamp: Sendable { let value = Atomic<UInt64>(0) }
