/// Runs the attempts of one operation run: retries with backoff, per-attempt timeout, the attempt number in the state.
@usableFromInline
struct Attempts<Value: OperationTrackable>: Sendable {
  @usableFromInline let shared: Shared<Value>
  @usableFromInline let operation: @Sendable () async throws -> Value.Success
  @usableFromInline let options: OperationOptions

  @inlinable
  init(
    shared: Shared<Value>,
    operation: @escaping @Sendable () async throws -> Value.Success,
    options: OperationOptions
  ) {
    self.shared = shared
    self.operation = operation
    self.options = options
  }

  /// Runs the attempts of run `run`; a retry shows its attempt number only while the state follows this run.
  ///
  /// A `CancellationError` thrown by the operation is never retried: it is cancellation when this run's task is
  /// cancelled, and otherwise a failure like any other error (`onError`, the stored error).
  @inlinable
  func run(_ run: UInt64, runner: OperationRunner<Value>) async -> RunOutcome<Value.Success> {
    // The common case, one attempt with no timeout, stays small enough to specialize in the caller.
    if options.retry.retries == 0 && options.timeout == nil {
      if Task.isCancelled { return .cancelled }
      do {
        let value = try await operation()
        // A run cancelled while its operation finished anyway counts as cancelled, as it would with a timeout.
        return Task.isCancelled ? .cancelled : .success(value)
      } catch {
        return Task.isCancelled ? .cancelled : .failure(error)
      }
    }
    return await runWithRetries(run: run, runner: runner)
  }

  @usableFromInline
  func runWithRetries(run: UInt64, runner: OperationRunner<Value>) async -> RunOutcome<Value.Success> {
    await AttemptLoop.run(
      options: options,
      onRetry: { attempt in
        // A retry of a run the state does not follow writes nothing: it takes no value lock.
        guard runner.coordinate({ $0.parallel.retry(run) }) == .showAttempt else { return }
        shared.withLock { value in
          guard runner.coordinate({ $0.parallel.retry(run) }) == .showAttempt else { return }
          value.operation.retry(attempt)
        }
      }, operation)
  }
}
