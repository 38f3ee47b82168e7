import SharedState

/// A bare `Task { }` created and awaited.
func bareTask(_ count: Int) async -> Double {
  let start = now()
  for value in 0..<count {
    let task = Task { value &+ 1 }
    blackHole(await task.value)
  }
  return Double(now() - start) / Double(count)
}

/// A trivial operation with all four callbacks, started off the main actor and awaited.
func trivialOperation(_ count: Int) async -> Double {
  let post = Shared(value: OperationState<Int>())
  let calls = CallCounter()
  let start = now()
  for value in 0..<count {
    let task = post.run {
      value
    } onAttempt: {
      calls.count += 1
    } onSuccess: { _ in
      calls.count += 1
    } onError: { _ in
      calls.count += 1
    } onSettled: { _ in
      calls.count += 1
    }
    blackHole(try? await task.value)
  }
  let elapsed = Double(now() - start) / Double(count)
  precondition(calls.count == 3 * count, "every run calls onAttempt, onSuccess and onSettled")
  return elapsed
}

/// Counts callback calls; only touched by one task at a time.
final class CallCounter {
  var count = 0
}

/// `run` with no callbacks, its task awaited: the baseline of `perform`.
func runAndAwait(_ count: Int) async -> Double {
  let post = Shared(value: OperationState<Int>())
  let start = now()
  for value in 0..<count {
    let task = post.run { value }
    blackHole(try? await task.value)
  }
  let elapsed = Double(now() - start) / Double(count)
  precondition(post.wrappedValue.value == count - 1, "every run succeeds")
  return elapsed
}

/// `perform`: a run awaited in one call.
func performAwaited(_ count: Int) async -> Double {
  let post = Shared(value: OperationState<Int>())
  let start = now()
  for value in 0..<count {
    blackHole(try? await post.perform { value })
  }
  let elapsed = Double(now() - start) / Double(count)
  precondition(post.wrappedValue.value == count - 1, "every run succeeds")
  return elapsed
}
