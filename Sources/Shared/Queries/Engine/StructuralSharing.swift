/// Structural sharing (see ``QueryOptions/structuralSharing``): a fetched value keeps what it can of the value it
/// replaces, so that what did not change keeps its identity (an object stays the same object) and its storage (an
/// array or a string keeps its buffer, and the fetched copy is released).
///
/// Decided by the value's type at run time: a value whose type is not `Equatable` costs one failed conformance check
/// per fetch, and is written as fetched.
enum StructuralSharing {
  /// `new`, keeping what it can of `old`: `old` itself when the two are `==`; otherwise, for an array of
  /// `Identifiable` and `Equatable` elements, `new` with each element that equals the element of its `id` in `old`
  /// taken from `old`; for any other value, `new`.
  static func shared<Value>(_ new: Value, replacing old: Value) -> Value {
    guard let equatable = Value.self as? any Equatable.Type else { return new }
    // Opened, so that the two values compare as their own type.
    func isEqual<Opened: Equatable>(_: Opened.Type) -> Bool {
      // `Opened` is `Value` itself, opened from its metatype: the casts cannot fail.
      (old as! Opened) == (new as! Opened)
    }
    if isEqual(equatable) { return old }
    guard let elements = Value.self as? any IdentifiedElements.Type else { return new }
    func reusing<Opened: IdentifiedElements>(_: Opened.Type) -> Value {
      Opened.reusingElements(of: old as! Opened, in: new as! Opened) as! Value
    }
    return reusing(elements)
  }
}

/// A collection whose unchanged elements a fetched one can take from the one it replaces, matched by their `id`.
protocol IdentifiedElements {
  /// `new`, with each element that equals the element of its `id` in `old` taken from `old`.
  static func reusingElements(of old: Self, in new: Self) -> Self
}

extension Array: IdentifiedElements where Element: Identifiable & Equatable {
  static func reusingElements(of old: [Element], in new: [Element]) -> [Element] {
    guard !old.isEmpty, !new.isEmpty else { return new }
    // The first of each `id`: a list that repeats an `id` keeps its first element's match.
    var byID: [Element.ID: Int] = [:]
    byID.reserveCapacity(old.count)
    for index in old.indices where byID[old[index].id] == nil { byID[old[index].id] = index }
    var shared = new
    for index in shared.indices {
      guard let match = byID[shared[index].id], old[match] == shared[index] else { continue }
      shared[index] = old[match]
    }
    return shared
  }
}

/// A query state that can take a fetched value keeping what it shows where the value did not change.
protocol StructurallySharedState: OperationTrackable {
  /// `success`, keeping what it can of what this state shows (see ``StructuralSharing``).
  func sharing(_ success: Success) -> Success
}

extension OperationState: StructurallySharedState {
  func sharing(_ success: Value) -> Value {
    guard let value else { return success }
    return StructuralSharing.shared(success, replacing: value)
  }
}

extension PaginatedState: StructurallySharedState {
  /// A refetch of the pages keeps each page that equals the loaded page of its identifier (or its unchanged
  /// elements); a page fetched next or before has nothing to keep.
  func sharing(_ update: PageUpdate<PageID, Page>) -> PageUpdate<PageID, Page> {
    guard case .all(let ids, let pages, let hasNext, let hasPrevious) = update, !pageIDs.isEmpty,
      Page.self is any Equatable.Type
    else { return update }
    var loaded: [PageID: Int] = [:]
    loaded.reserveCapacity(pageIDs.count)
    for (index, id) in pageIDs.enumerated() where loaded[id] == nil { loaded[id] = index }
    var shared = pages
    for (index, id) in ids.enumerated() {
      guard let match = loaded[id] else { continue }
      shared[index] = StructuralSharing.shared(pages[index], replacing: self.pages[match])
    }
    return .all(ids: ids, pages: shared, hasNext: hasNext, hasPrevious: hasPrevious)
  }
}

extension QueryFetchExecutor {
  /// The fetched `value` to write into `shared`: with `sharing` (the query's ``QueryOptions/structuralSharing``),
  /// keeping what the query's confirmed value shows where the value did not change; `value` otherwise.
  ///
  /// Compares outside every lock (`==` is the app's code): the confirmed value is read under the value's lock, then
  /// compared. What this returns is `==` to `value` whatever was written since the read, so writing it in place of
  /// `value` changes nothing but the instances kept.
  @usableFromInline
  static func sharedValue<State: OperationTrackable>(
    _ value: State.Success,
    with shared: Shared<State>,
    sharing: Bool
  ) -> State.Success {
    guard sharing, let shareable = State.self as? any StructurallySharedState.Type,
      let current = shared.confirmedValue
    else { return value }
    // Opened, so that the state keeps its own type: `Opened` is `State` itself, and the casts cannot fail.
    func kept<Opened: StructurallySharedState>(_: Opened.Type) -> State.Success {
      (current as! Opened).sharing(value as! Opened.Success) as! State.Success
    }
    return kept(shareable)
  }
}

extension Shared {
  /// A query's confirmed value (the one its optimistic changes show over, if any), read without writing; `nil` for a
  /// value that is not a root's.
  var confirmedValue: Value? {
    guard case .root(let root) = reference else { return nil }
    return root.box.withValue(attached: AttachedLayer<Value>.self) { value, attached in
      attached?.layer.confirmed ?? value
    }
  }
}
