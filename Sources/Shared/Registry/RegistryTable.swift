/// The entries of one key identity type. Only touched under the registry's lock.
@usableFromInline
final class RegistryTable<ID: Hashable>: RegistryTableProtocol {
  @usableFromInline var entries: [ID: RegistryEntry] = [:]

  @usableFromInline
  init() {}

  var liveObjects: [AnyObject] { entries.values.compactMap(\.object) }
}

/// What a registry needs of a table without knowing its identity type.
protocol RegistryTableProtocol: AnyObject {
  var liveObjects: [AnyObject] { get }
}
