/// How one run of an operation ended.
@usableFromInline
enum RunOutcome<Success: Sendable>: Sendable {
  case success(Success)
  case failure(any Error)
  case cancelled

  /// The outcome of a run that ended with `result`.
  @inlinable
  init(_ result: Result<Success, any Error>) {
    switch result {
    case .success(let value): self = .success(value)
    case .failure(let error): self = .failure(error)
    }
  }

  @inlinable
  var result: Result<Success, any Error> {
    switch self {
    case .success(let value): return .success(value)
    case .failure(let error): return .failure(error)
    case .cancelled: return .failure(CancellationError())
    }
  }
}
