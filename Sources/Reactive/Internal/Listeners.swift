/// The subscribers and observers of a box, and the queue of changes waiting for its observers.
///
/// Only ever touched through ``BoxState``, under the box's lock; it is a class so that a box without listeners
/// carries one pointer instead of all of this.
@usableFromInline
final class Listeners<Value: Sendable> {
  @usableFromInline var subscribers = SlotTable<Subscriber<Value>>()
  @usableFromInline var observers: [ObserverEntry<Value>] = []
  @usableFromInline var nextObserverID: UInt64 = 0
  /// Changes waiting for the observers while one thread delivers an earlier change to them.
  @usableFromInline var pendingObserverChanges = RingBuffer<PendingChange<Value>>()
  @usableFromInline var isDeliveringToObservers = false
  /// The first object another layer keeps with the box, and the type it was asked for by (see
  /// ``ReactiveBox/attachment(_:make:)``): most boxes keep one, and a table costs an allocation and a hash.
  @usableFromInline var firstAttachment: (type: ObjectIdentifier, object: AnyObject)?
  /// The objects other layers keep with the box after the first, one per type.
  @usableFromInline var attachments: [ObjectIdentifier: AnyObject] = [:]

  @inlinable
  init() {}

  /// The object kept with the box by `type`, if there is one.
  @inlinable
  func attachment<T: AnyObject>(_ type: ObjectIdentifier, as _: T.Type) -> T? {
    if let first = firstAttachment, first.type == type { return unsafeDowncast(first.object, to: T.self) }
    return attachments[type].map { unsafeDowncast($0, to: T.self) }
  }

  /// Records a change, the box's value at `version`, for every subscriber and observer.
  ///
  /// A subscriber that keeps only the newest value is written only when it waits: otherwise the box's version tells
  /// it that a value is pending.
  @inlinable
  func didChange(_ value: Value, version: UInt64, isFinished: Bool, into delivery: inout ChangeDelivery<Value>) {
    if !isFinished && !subscribers.isEmpty {
      subscribers.updateEach { subscriber in
        if let waiter = subscriber.waiter {
          subscriber.waiter = nil
          subscriber.takenVersion = version
          delivery.waiters.append(waiter)
        } else if !subscriber.keepsNewestOnly,
          let dropped = subscriber.buffer.append(value, limit: subscriber.limit)
        {
          // Released after the lock: a value's deinit may use this box.
          delivery.released.append(dropped)
        }
      }
    }
    if !observers.isEmpty {
      if isDeliveringToObservers {
        pendingObserverChanges.append(PendingChange(value: value, lastObserverID: nextObserverID), limit: .max)
      } else {
        isDeliveringToObservers = true
        delivery.observers = observers
      }
    }
  }

  @inlinable
  func nextObserverRound() -> ObserverRound<Value> {
    if !observers.isEmpty, let change = pendingObserverChanges.popFirst() {
      // Identifiers grow with registration, so the observers that existed at the change are a prefix.
      let registeredBefore =
        observers.last!.id <= change.lastObserverID
        ? observers : Array(observers.prefix { $0.id <= change.lastObserverID })
      return .deliver(registeredBefore, change.value)
    }
    isDeliveringToObservers = false
    var released = RingBuffer<PendingChange<Value>>()
    swap(&released, &pendingObserverChanges)
    return .done(released)
  }

  @inlinable
  func removeObserver(_ id: UInt64) -> ObserverEntry<Value>? {
    // Identifiers only grow, so the array is sorted by them.
    var low = 0
    var high = observers.count
    while low < high {
      let middle = (low + high) / 2
      if observers[middle].id < id { low = middle + 1 } else { high = middle }
    }
    guard low < observers.count && observers[low].id == id else { return nil }
    return observers.remove(at: low)
  }
}
