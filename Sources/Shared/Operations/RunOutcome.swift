/// How one run of an operation ended.
@usableFromInline
enum RunOutcome<Success: Sendable>: Sendable {
  case success(Success)
  case failure(any Error)
  case cancelled

  @inlinable
  var result: Result<Success, any Error> {
    switch self {
    case .success(let value): return .success(value)
    case .failure(let error): return .failure(error)
    case .cancelled: return .failure(CancellationError())
    }
  }
}
