/// Stops a key's watch of its store when cancelled or freed.
///
/// ```swift
/// func subscribe(context: SharedKeyContext<Config>) -> SharedSubscription {
///   let task = Task { for await config in remote.updates(named: name) { context.update(config) } }
///   return SharedSubscription { task.cancel() }
/// }
/// ```
public final class SharedSubscription: Sendable {
  private let onCancel: @Sendable () -> Void
  private let cancelled = Flag()

  /// Creates a subscription that calls `onCancel` once, when cancelled or freed.
  ///
  /// - Parameter onCancel: Stops the watch.
  public init(_ onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = onCancel
  }

  deinit {
    cancel()
  }

  /// Stops the watch. Calling it again does nothing.
  public func cancel() {
    if cancelled.set() { onCancel() }
  }
}
