/// The work of an operation run or a query fetch, as the caller wrote it: with or without a context.
///
/// Kept apart so that the common case, an operation that takes no context, runs without building one.
@usableFromInline
enum OperationBody<Success: Sendable>: Sendable {
  /// An operation that takes no context.
  case plain(@Sendable () async throws -> Success)
  /// An operation that takes its attempt's context.
  case contextual(@Sendable (OperationContext<Success>) async throws -> Success)

  /// Whether the work reads its context.
  @inlinable
  var takesContext: Bool {
    if case .contextual = self { return true }
    return false
  }

  /// Runs the work in `context`.
  @inlinable
  func callAsFunction(_ context: OperationContext<Success>) async throws -> Success {
    switch self {
    case .plain(let operation): return try await operation()
    case .contextual(let operation): return try await operation(context)
    }
  }
}
