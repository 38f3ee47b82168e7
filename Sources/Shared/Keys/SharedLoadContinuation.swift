/// What a key's ``SharedReaderKey/load(context:continuation:)`` hands its result to: the stored value, `nil` for
/// "nothing stored", or the error that kept the store from being read.
///
/// Resume it before `load` returns for a synchronous load (the first holder starts from the stored value), or later,
/// from a task, for an asynchronous one (holders start from their default, with ``Shared/isLoading`` set, until it
/// is resumed).
///
/// ```swift
/// func load(context: SharedKeyContext<Config>, continuation: SharedLoadContinuation<Config>) {
///   Task {
///     do {
///       continuation.resume(returning: try await remote.config(named: name))
///     } catch {
///       continuation.resume(throwing: error)
///     }
///   }
/// }
/// ```
///
/// > Important: Resume it exactly once. A second resume is ignored. A continuation whose every copy is gone before
/// > it was resumed ends the load with ``SharedLoadError/notResumed(key:)``, so a `load()` never waits forever.
///
/// A continuation refers to its value weakly: once every holder is gone, resuming it does nothing.
public struct SharedLoadContinuation<Value: Sendable>: Sendable {
  let attempt: LoadAttempt<Value>

  /// Ends the load with the stored value, or with `nil` when the store holds nothing.
  ///
  /// ```swift
  /// continuation.resume(returning: cache[name])
  /// ```
  ///
  /// Every holder sees the value, unless the program changed the value since the load began: that change wins.
  /// With `nil`, holders keep the default of the holder that created the value; the default is never saved by a
  /// load.
  ///
  /// - Parameter value: The stored value, or `nil` when there is none.
  public func resume(returning value: Value?) {
    attempt.resume(.success(value))
  }

  /// Ends the load with the error that kept the store from being read.
  ///
  /// ```swift
  /// continuation.resume(throwing: RemoteError.offline)
  /// ```
  ///
  /// Holders keep their value, the error is exposed as ``Shared/loadError``, and the store is left untouched until
  /// the value is changed.
  ///
  /// - Parameter error: Why the store could not be read.
  public func resume(throwing error: any Error) {
    attempt.resume(.failure(error))
  }

  /// Ends the load with `result`: its value (or `nil` for "nothing stored"), or its error.
  ///
  /// ```swift
  /// continuation.resume(with: Result { try cache.read(name) })
  /// ```
  ///
  /// - Parameter result: The stored value, `nil`, or the error that kept the store from being read.
  public func resume<Failure: Error>(with result: Result<Value?, Failure>) {
    attempt.resume(result.mapError { $0 as any Error })
  }
}
