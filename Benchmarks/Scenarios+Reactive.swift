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

/// One change delivered to each of `subscribers` iterations of `values(buffering: .all)`: nanoseconds per value
/// delivered to one subscriber, from the first change until every subscriber has seen the last.
func boxFanOut(subscribers: Int, changes: Int) async -> Double {
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
      start.nanoseconds.store(now(), ordering: .relaxed)
      for _ in 0..<changes { box.withLock { $0 += 1 } }
    }
    await group.waitForAll()
  }
  let elapsed = now() - start.nanoseconds.load(ordering: .relaxed)
  return Double(elapsed) / Double(subscribers * changes)
}
