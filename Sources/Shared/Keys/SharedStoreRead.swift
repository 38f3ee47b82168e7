/// Where a key's read of its store began: what ``SharedKeyContext/update(_:readAt:)`` checks the value it read
/// against, so that a value read before a change of the program does not replace that change.
///
/// Take one with ``SharedKeyContext/storeReadStarted()`` just before reading the store (or before reading
/// ``SharedKeyContext/currentValue`` to combine it with what the store holds), and hand it back with the value:
///
/// ```swift
/// func apply(_ remote: Counter, context: SharedKeyContext<Counter>) async {
///   while let read = context.storeReadStarted(), let local = context.currentValue {
///     let merged = Counter(count: max(local.count, remote.count))
///     await remoteStore.write(merged)
///     if context.update(merged, readAt: read) { return }
///   }
/// }
/// ```
///
/// It has no public members: it only means something to the context that made it.
public struct SharedStoreRead: Sendable, Equatable {
  let read: StoreRead
}
