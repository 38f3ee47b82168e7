// Functions that only need to compile: they pin down that the README's tour of operations is real code.
import SharedState

private struct Post: Sendable, Equatable {
  var id: Int
  var title: String
}

private struct Logging: OperationModifier {  // your own behaviour around every attempt
  func run<Success: Sendable>(
    context: OperationContext<Success>,
    next: (OperationContext<Success>) async throws -> Success
  ) async throws -> Success {
    print("attempt", context.attempt)
    return try await next(context)
  }
}

private func operationTour(api: @escaping @Sendable (Int) async throws -> Post) async throws {
  @Shared(.inMemory("post")) var post = OperationState<Post>()
  let task = $post.run {  // returns at once; the status is already .pending
    try await api(1)
  } onAttempt: {
    print("started")  // synchronously, before run returns
  } onSuccess: { post in
    print("loaded", post.title)  // then onSuccess or onError (neither if cancelled)
  } onError: { error in
    print("failed", error)
  } onSettled: { result in
    print("settled")  // always last
  }
  _ = try await task.value  // or task.cancel()
  if post.status.isSuccess, let loaded = post.value { print(loaded.title) }

  let again = try await $post.perform(.retry(.exponential(retries: 3)), policy: .dedupe) { try await api(1) }
  $post.run(.modifier(Logging()).timeout(.seconds(10))) { context in
    if let cached = post.value { context.yield(cached) }  // shown now; the run stays pending
    return try await api(context.attempt)
  }
  $post.reset()  // clears the error, status back to idle
  _ = again
}
