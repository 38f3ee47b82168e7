/// A key's identity as the registry stores it: any hashable, sendable value, compared together with its type.
struct RegistryKey: Hashable, Sendable {
  let id: any Hashable & Sendable

  init(_ id: some Hashable & Sendable) {
    self.id = id
  }

  static func == (lhs: RegistryKey, rhs: RegistryKey) -> Bool {
    func isEqual<ID: Hashable>(_ id: ID, to other: any Hashable) -> Bool {
      guard let other = other as? ID else { return false }
      return id == other
    }
    return isEqual(lhs.id, to: rhs.id)
  }

  func hash(into hasher: inout Hasher) {
    id.hash(into: &hasher)
  }
}
