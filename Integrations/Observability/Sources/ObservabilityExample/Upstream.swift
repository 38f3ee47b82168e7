import SharedState

/// The failure of an upstream call that a second attempt may fix: retried, and answered with 502 once retries are
/// spent.
struct UpstreamError: Error, CustomStringConvertible {
  var description: String { "the upstream failed" }
}

/// A backend that answers in 2 ms; the id `fail` always fails, `slow` takes 10 s (longer than an attempt may), and
/// `hangup` fails after 10 s (its client is expected to hang up before: its fetch is cancelled, not retried).
struct Upstream: Sendable {
  func post(_ id: String) async throws -> String {
    switch id {
    case "fail":
      try await Task.sleep(for: .milliseconds(2))
      throw UpstreamError()
    case "slow":
      try await Task.sleep(for: .seconds(10))
    case "hangup":
      try await Task.sleep(for: .seconds(10))
      throw UpstreamError()
    default:
      try await Task.sleep(for: .milliseconds(2))
    }
    return "post \(id)"
  }

  /// The query of the post `id`: fresh for 30 s, one retry of an upstream failure, 1 s per attempt (`hangup`'s
  /// attempt may take 15 s).
  static func query(_ id: String, upstream: Upstream) -> Query<OperationState<String>> {
    .query(["posts", id], options: id == "hangup" ? patient : options) { try await upstream.post(id) }
  }

  static let patient = QueryOptions(
    staleTime: .seconds(30),
    gcTime: .seconds(60),
    operation: .retry(
      RetryPolicy(retries: 1, backoff: { _ in .milliseconds(10) }, shouldRetry: { error, _ in error is UpstreamError })
    ).timeout(.seconds(15)))

  static let options = QueryOptions(
    staleTime: .seconds(30),
    gcTime: .seconds(60),
    operation: .retry(
      RetryPolicy(retries: 1, backoff: { _ in .milliseconds(10) }, shouldRetry: { error, _ in error is UpstreamError })
    ).timeout(.seconds(1)))
}
