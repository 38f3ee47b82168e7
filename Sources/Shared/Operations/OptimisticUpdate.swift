/// A change applied to a shared value as soon as an operation starts, and undone if the operation does not succeed.
///
/// ```swift
/// let todo = Todo(title: "Water the plants")
/// $todos.run(
///   optimistic: OptimisticUpdate(
///     apply: { $0.value?.append(todo) },
///     rollback: { $0.value?.removeAll { $0.id == todo.id } })
/// ) {
///   try await api.add(todo)
/// }
/// ```
///
/// Both closures run under the value's lock (`withLock`), so they must be quick and must not use the same shared
/// value. The rollback undoes exactly this change, so it is safe even when other changes happened meanwhile.
public struct OptimisticUpdate<Value: Sendable>: Sendable {
  /// Applied when the run starts.
  public let apply: @Sendable (inout Value) -> Void
  /// Applied if the run fails or is cancelled.
  public let rollback: @Sendable (inout Value) -> Void

  /// An optimistic update.
  ///
  /// - Parameters:
  ///   - apply: The change, applied when the run starts.
  ///   - rollback: Undoes the change if the run fails or is cancelled.
  public init(
    apply: @escaping @Sendable (inout Value) -> Void,
    rollback: @escaping @Sendable (inout Value) -> Void
  ) {
    self.apply = apply
    self.rollback = rollback
  }
}
