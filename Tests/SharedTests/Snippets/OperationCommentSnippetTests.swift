// A snippet of the documentation that states a result, run as a test.
import Foundation
import SharedState
import Synchronization
import Testing

/// The operation snippets that state a result, run as tests.
@Suite struct OperationCommentSnippetTests {
  struct LoggingModifier: OperationModifier {
    func run<Success: Sendable>(
      context: OperationContext<Success>,
      next: (OperationContext<Success>) async throws -> Success
    ) async throws -> Success {
      try await next(context)
    }
  }

  // HashableError
  @Test func anErrorEqualsItsCopiesOnly() {
    let first = HashableError(URLError(.timedOut))
    let copy = first
    #expect(first == copy)
    #expect(first != HashableError(URLError(.timedOut)))
  }

  // OperationContext.init(attempt:clock:onYield:)
  @Test func aModifierRunsWithAContextOfYourOwn() async throws {
    let shown = Mutex<[Int]>([])
    let context = OperationContext<Int>(attempt: 2, clock: ManualClock()) { value in
      shown.withLock { $0.append(value) }
    }
    let value = try await LoggingModifier().run(context: context) { _ in 42 }
    #expect(value == 42)
    #expect(shown.withLock { $0 }.isEmpty)
  }

  // OperationState.init(value:)
  @Test func aStateMadeWithAValueIsASuccess() {
    let cached = OperationState(value: Post(id: 1, title: "Cached"))  // status .success
    #expect(cached.status == .success)
  }

  // OperationState.applySuccess(_:)
  @Test func aSuccessStoresTheValue() {
    var state = OperationState<Post>()
    let post = Post(id: 1, title: "Hello")
    state.applySuccess(post)  // state.value == post
    #expect(state.value == post)
  }
}
