import Testing

@testable import SharedState

/// The case checks live on the status, and each is true for its own case only.
@Suite struct OperationStatusTests {
  @Test(arguments: OperationStatus.allCases) func eachCaseCheckIsTrueForItsOwnCaseOnly(status: OperationStatus) {
    #expect(status.isIdle == (status == .idle))
    #expect(status.isPending == (status == .pending))
    #expect(status.isSuccess == (status == .success))
    #expect(status.isError == (status == .error))
    let checks = [status.isIdle, status.isPending, status.isSuccess, status.isError]
    #expect(checks.filter { $0 }.count == 1)
  }

  @Test func theCasesAndTheirNames() {
    #expect(OperationStatus.allCases == [.idle, .pending, .success, .error])
    #expect(OperationStatus(rawValue: "error") == .error)
    #expect(OperationStatus.pending.rawValue == "pending")
  }
}
