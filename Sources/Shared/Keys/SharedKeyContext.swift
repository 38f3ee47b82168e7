/// What a key may do with the value it backs: replace it with a value from its store, and report errors.
///
/// A ``SharedReaderKey`` (or ``SharedKey``) gets a context in each of its hooks:
///
/// ```swift
/// func subscribe(context: SharedKeyContext<Config>) -> SharedSubscription {
///   let task = Task { for await config in remote.updates(named: name) { context.update(config) } }
///   return SharedSubscription { task.cancel() }
/// }
/// ```
///
/// A context refers to its value weakly: once every holder is gone, its methods do nothing.
public struct SharedKeyContext<Value: Sendable>: Sendable {
  weak var persistence: Persistence<Value>?
  /// Tells apart the shared values a key backs, for stores that keep something per value.
  let valueID: ObjectIdentifier

  init(persistence: Persistence<Value>) {
    self.persistence = persistence
    self.valueID = ObjectIdentifier(persistence)
  }

  /// Replaces the shared value with one read from the store, without saving it back.
  ///
  /// Every holder sees the new value. A change made in the program but not saved yet is dropped in favour of the
  /// store's value; a change made after this call is saved as usual. If a save is running, the store's value is
  /// saved again after it, so the store cannot end with the older value.
  ///
  /// A store that tells its watchers of every write, the program's own too, may report a save while it runs: that
  /// echo is not saved again, and does not undo a change made in the program since that save began, when it is
  /// reported from inside the key's ``SharedKey/save(_:context:)``, or (for an `Equatable` value) equals the value
  /// being saved. An echo of a value that is not `Equatable`, reported from another task while the save runs, is
  /// taken as a change of the store: it replaces memory and is saved again after the running save.
  ///
  /// Call it one call after another (from one task or loop), not from several tasks at once: two concurrent calls
  /// are applied in either order, and memory and store may then settle on different values.
  ///
  /// The value is always applied: it says what the store holds now. A key that polls its store cannot tell this
  /// call that it read before a change of the program (the file key's checked path is internal), so in a rare race
  /// a polled value can replace a change made while it was read; report from a change feed where you can.
  ///
  /// The value the library lets go of is released after its locks, so its `deinit` may read this shared value.
  ///
  /// - Parameter value: The value the store now holds.
  public func update(_ value: Value) {
    persistence?.update(fromStore: value)
  }

  /// Tells every holder that the store no longer holds a value (its file was deleted, say): the shared value goes
  /// back to the default of the holder that created it, without saving anything.
  ///
  /// Like ``update(_:)``, a change made in the program but not saved yet is dropped; a change made after this
  /// call is saved as usual. Make these calls and those of ``update(_:)`` one after another, in the order the store
  /// changed: two concurrent calls are applied in either order, and memory and store may then disagree.
  ///
  /// ```swift
  /// for await entry in remote.updates(named: name) {
  ///   if let config = entry.config { context.update(config) } else { context.resetToDefault() }
  /// }
  /// ```
  public func resetToDefault() {
    persistence?.resetFromStore()
  }

  /// Records why the store could not be read, or clears the record with `nil`; exposed as ``Shared/loadError``.
  ///
  /// - Parameter error: What went wrong, or `nil` once the store reads fine again.
  public func reportLoadError(_ error: (any Error)?) {
    persistence?.setLoadError(error)
  }

  /// The current value, or `nil` once every holder is gone.
  public var currentValue: Value? {
    persistence?.box.value
  }

  // MARK: Reads checked against saves

  /// Marks the start of a read of the store, for ``update(_:readAt:)``; `nil` once every holder is gone.
  func storeReadStarted() -> StoreRead? {
    persistence?.storeReadStarted()
  }

  /// Applies `value`, read from the store by a read that began at `read`, unless the program saved or changed
  /// the value since: the store then holds, or will hold, the program's newer value.
  ///
  /// - Returns: Whether the value was applied; if not, read the store again on the next check.
  func update(_ value: Value, readAt read: StoreRead) -> Bool {
    persistence?.update(fromStore: value, read: read) ?? true
  }

  /// ``resetToDefault()`` for a read that began at `read`; see ``update(_:readAt:)``.
  func resetToDefault(readAt read: StoreRead) -> Bool {
    persistence?.resetFromStore(read: read) ?? true
  }
}
