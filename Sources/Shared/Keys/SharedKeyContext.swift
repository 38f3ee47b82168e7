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
  /// The value is always applied: it says what the store holds now. A key that polls its store, or combines what it
  /// read with memory before applying it, reports with ``update(_:readAt:)`` instead, so that a change the program
  /// made while the read was under way is not replaced.
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

  // MARK: Reads checked against changes of the program

  /// Marks the start of a read of the store, for ``update(_:readAt:)``: the value read is later applied only if
  /// the program did not change (or save) the shared value in between.
  ///
  /// Take it before the read: before fetching the store's value, or, for a key that combines the store's value with
  /// memory (a merge), before reading ``currentValue``.
  ///
  /// ```swift
  /// guard let read = context.storeReadStarted() else { return }  // Every holder is gone.
  /// let stored = try await remote.fetch(name)
  /// if !context.update(stored, readAt: read) { scheduleAnotherRead() }
  /// ```
  ///
  /// - Returns: Where the read began, or `nil` once every holder is gone.
  public func storeReadStarted() -> SharedStoreRead? {
    persistence.map { SharedStoreRead(read: $0.storeReadStarted()) }
  }

  /// Applies `value`, read from the store by a read that began at `read`, unless the program changed or saved the
  /// value since: then the store holds, or will hold, the program's newer value, and `value` is dropped.
  ///
  /// ``update(_:)`` always applies its value: a key that reads its store (or combines the store's value with
  /// memory) and then applies the result can, with it, undo a change the program made while the read was under
  /// way. This method closes that window: the check and the write happen under the value's lock, where every change
  /// of the program is numbered, so a change made after the read began is never overwritten, even when its save has
  /// not started yet. When it returns `false`, read again (a change of the program is saved as usual and may need
  /// combining with what the store holds; a save that was running may have written the store after the read).
  ///
  /// ```swift
  /// while let read = context.storeReadStarted(), let local = context.currentValue {
  ///   let merged = local.merging(try await remote.fetch(name))
  ///   if context.update(merged, readAt: read) { break }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - value: The value the store holds (or memory combined with it).
  ///   - read: Where the read began, from ``storeReadStarted()``.
  /// - Returns: Whether `value` was applied; `true` when every holder is gone.
  public func update(_ value: Value, readAt read: SharedStoreRead) -> Bool {
    persistence?.update(fromStore: value, read: read.read) ?? true
  }

  /// Applies `value` as ``update(_:readAt:)`` does, for a key that wrote the program's change to the store itself
  /// (retrying a failed save on its own, after a reconnect say) and reports what the store holds now: when it is
  /// applied, the failed save's error (``Shared/saveError``) clears, since the program's change reached the store.
  /// A plain ``update(_:readAt:)`` leaves that error in place: the store's own value does not tell the program that
  /// its change was saved.
  ///
  /// ```swift
  /// guard let read = context.storeReadStarted(), let local = context.currentValue else { return }
  /// let stored = try await remote.write(local, named: name)
  /// _ = context.updateAfterSaving(stored, readAt: read)
  /// ```
  ///
  /// - Parameters:
  ///   - value: What the store holds after the key's write.
  ///   - read: Where the key's read of memory began, from ``storeReadStarted()``, taken before ``currentValue``.
  /// - Returns: Whether `value` was applied (and the error cleared); `false` when the program changed the value
  ///   since: that change is saved as usual.
  @discardableResult
  public func updateAfterSaving(_ value: Value, readAt read: SharedStoreRead) -> Bool {
    persistence?.update(fromStore: value, read: read.read, saved: true) ?? true
  }

  /// ``resetToDefault()`` for a read that began at `read`: drops the store's "no value" when the program changed
  /// or saved the value since, as ``update(_:readAt:)`` does.
  ///
  /// ```swift
  /// guard let read = context.storeReadStarted() else { return }
  /// if try await remote.fetch(name) == nil, !context.resetToDefault(readAt: read) { scheduleAnotherRead() }
  /// ```
  ///
  /// - Parameter read: Where the read began, from ``storeReadStarted()``.
  /// - Returns: Whether the default was applied; `true` when every holder is gone.
  public func resetToDefault(readAt read: SharedStoreRead) -> Bool {
    persistence?.resetFromStore(read: read.read) ?? true
  }
}
