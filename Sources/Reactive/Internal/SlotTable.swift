/// An array of elements addressed by stable handles, with O(1) insertion, lookup and removal.
///
/// Freed slots are reused, so the table never grows past the largest number of elements it held at once.
@usableFromInline
struct SlotTable<Element> {
  @usableFromInline
  struct Slot {
    @usableFromInline var generation: UInt64
    @usableFromInline var element: Element?

    @inlinable
    init(generation: UInt64, element: Element?) {
      self.generation = generation
      self.element = element
    }
  }

  @usableFromInline var slots: [Slot] = []
  @usableFromInline var freeIndices: [Int32] = []
  @usableFromInline var count = 0
  @usableFromInline var nextGeneration: UInt64 = 0

  @inlinable
  init() {}

  @inlinable
  var isEmpty: Bool { count == 0 }

  /// Stores `element` and returns its handle.
  @inlinable
  mutating func insert(_ element: Element) -> SlotHandle {
    count += 1
    nextGeneration &+= 1
    if let index = freeIndices.popLast() {
      slots[Int(index)] = Slot(generation: nextGeneration, element: element)
      return SlotHandle(index: index, generation: nextGeneration)
    }
    slots.append(Slot(generation: nextGeneration, element: element))
    return SlotHandle(index: Int32(slots.count - 1), generation: nextGeneration)
  }

  /// Whether `handle` still names an element of the table.
  @inlinable
  func contains(_ handle: SlotHandle) -> Bool {
    let index = Int(handle.index)
    return index < slots.count && slots[index].generation == handle.generation
      && slots[index].element != nil
  }

  /// Removes and returns the element `handle` names, or `nil` if it was removed already.
  @inlinable
  @discardableResult
  mutating func remove(_ handle: SlotHandle) -> Element? {
    guard contains(handle) else { return nil }
    let index = Int(handle.index)
    let element = slots[index].element.take()
    count -= 1
    if count == 0 {
      slots.removeAll()
      freeIndices.removeAll()
    } else {
      freeIndices.append(handle.index)
    }
    return element
  }

  /// Calls `body` with the element `handle` names, if it is still in the table.
  @inlinable
  mutating func withElement<Result>(
    _ handle: SlotHandle,
    _ body: (inout Element) -> Result
  ) -> Result? {
    guard contains(handle) else { return nil }
    return body(&slots[Int(handle.index)].element!)
  }

  /// Calls `body` with every element, in slot order.
  @inlinable
  mutating func updateEach(_ body: (inout Element) -> Void) {
    for index in slots.indices where slots[index].element != nil {
      body(&slots[index].element!)
    }
  }
}

extension SlotTable: Sendable where Element: Sendable {}

extension SlotTable.Slot: Sendable where Element: Sendable {}
