// Functions that only need to compile: they pin down that the box's API reads as the Reactive catalog shows it.
import Reactive

private func readmeTour() {
  // One value, shared by reference.
  let counter = ReactiveBox(0)

  // Change it under its lock; listeners hear about it after the lock is released.
  counter.withLock { $0 += 1 }

  // Read it synchronously.
  let now: Int = counter.value
  _ = now

  // Every change, as an AsyncSequence: the current value first, then changes.
  Task {
    for await value in counter.values {  // keeps only the newest if you fall behind
      print("latest", value)
    }
  }
  Task {
    for await value in counter.values(buffering: .all) {  // every change, in order
      print("each", value)
    }
  }

  // Or a closure, called on the thread that made the change.
  let token = counter.observe { value in print("observed", value) }
  token.cancel()

  // End every iteration.
  counter.finish()
}
