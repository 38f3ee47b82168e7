/// A first-in, first-out queue over a circular array, used for each subscriber's pending values.
///
/// Appending and removing are amortized O(1); a removed element is released at once, so a buffer never keeps
/// a value alive after its consumer has taken it. The capacity is a power of two so positions wrap with a mask.
@usableFromInline
struct RingBuffer<Element> {
  @usableFromInline var storage: [Element?] = []
  @usableFromInline var head = 0
  @usableFromInline var count = 0

  @inlinable
  init() {}

  @inlinable
  var isEmpty: Bool { count == 0 }

  /// The number of elements the storage holds before it must grow.
  @inlinable
  var capacity: Int { storage.count }

  /// The largest empty storage worth handing back for reuse: up to 1 KiB, and at least 4 elements.
  @inlinable
  static var reusedCapacity: Int { Swift.max(4, 1_024 / MemoryLayout<Element?>.stride) }

  /// Appends `element`; when the buffer already holds `limit` elements, removes the oldest first and returns it,
  /// so the caller can release it where it chooses.
  @inlinable
  @discardableResult
  mutating func append(_ element: Element, limit: Int) -> Element? {
    var dropped: Element?
    if count >= limit {
      dropped = popFirst()
    }
    if count == storage.count {
      grow()
    }
    storage[(head &+ count) & (storage.count &- 1)] = element
    count &+= 1
    return dropped
  }

  /// Removes and returns the oldest element, or `nil` when the buffer is empty.
  @inlinable
  mutating func popFirst() -> Element? {
    guard count > 0 else { return nil }
    let element = storage[head].take()
    count &-= 1
    head = count == 0 ? 0 : (head &+ 1) & (storage.count &- 1)
    return element
  }

  /// Removes every element and releases the storage.
  @inlinable
  mutating func removeAll() {
    storage = []
    head = 0
    count = 0
  }

  @inlinable
  mutating func grow() {
    let newCapacity = Swift.max(2, storage.count * 2)
    var grown: [Element?] = []
    grown.reserveCapacity(newCapacity)
    for offset in 0..<count {
      grown.append(storage[(head &+ offset) & (storage.count &- 1)].take())
    }
    grown.append(contentsOf: repeatElement(nil, count: newCapacity - count))
    storage = grown
    head = 0
  }
}

extension RingBuffer: Sendable where Element: Sendable {}
