import Testing

@testable import SharedPostgres

/// The deadline every statement runs under: an operation that never ends is left behind, not awaited.
@Suite struct DeadlineTests {
  @Test func anOperationThatNeverEndsFailsAtItsDeadline() async throws {
    let never = Gate()
    await #expect(throws: DeadlinePassed.self) {
      try await bounded(.seconds(20)) {
        try await withDeadline(.milliseconds(50)) { await never.pass() }
      }
    }
    never.open()
  }

  @Test func anOperationThatEndsInTimeReturnsItsValueOrError() async throws {
    #expect(try await withDeadline(.seconds(60)) { 42 } == 42)
    struct Refused: Error {}
    await #expect(throws: Refused.self) { try await withDeadline(.seconds(60)) { throw Refused() } }
  }

  @Test func aCancelledCallerStopsWaitingAtOnce() async throws {
    let never = Gate()
    let waiting = Task { try await withDeadline(.seconds(600)) { await never.pass() } }
    waiting.cancel()
    await #expect(throws: CancellationError.self) {
      try await bounded(.seconds(20)) { try await waiting.value }
    }
    never.open()
  }
}
