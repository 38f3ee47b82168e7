import Reactive

extension ReactiveBox: SharedRootProtocol {
  /// A box has no store, so it has no load error.
  @usableFromInline var loadError: (any Error)? { nil }
  /// A box has no store, so it has no save error.
  @usableFromInline var saveError: (any Error)? { nil }
  @usableFromInline func clearSaveError() {}
  /// A box has no store, so it never loads.
  @usableFromInline var isLoading: Bool { false }
  /// A box has no store: there is nothing to save.
  @usableFromInline func save() async throws {}
  /// A box has no store: there is nothing to load.
  @usableFromInline func load() async throws {}
  /// A box never loads: nothing to track.
  @usableFromInline func trackValue() {}
}
