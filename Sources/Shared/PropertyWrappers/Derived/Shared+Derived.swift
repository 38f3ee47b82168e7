import Reactive
import Synchronization

extension Shared {
  /// A shared value derived from this one: its member at `keyPath`.
  ///
  /// ```swift
  /// func rename(_ user: Shared<User>) {
  ///   let name: Shared<String> = user.name
  ///   name.withLock { $0 = "Grace" }   // writes the user; every holder of the user sees it
  /// }
  /// ```
  ///
  /// A derived value has no storage of its own: reading it reads this value, writing it writes this value under
  /// its lock and notifies its listeners. Listeners of the derived value hear about changes of the member; when the
  /// member is `Equatable`, other changes of this value are skipped.
  ///
  /// - Parameter keyPath: The member.
  /// - Returns: A shared value, derived from this one, that reads and writes the member.
  public subscript<Member: Sendable>(
    dynamicMember keyPath: any WritableKeyPath<Value, Member> & Sendable
  ) -> Shared<Member> {
    Shared<Member>(reference: .derived(DerivedBox(DerivedMember(parent: self, keyPath: keyPath))))
  }

  /// A shared value derived from a shared optional: its wrapped value, or `nil` while the optional is `nil`.
  ///
  /// ```swift
  /// func greet(_ profile: Shared<Profile?>) {
  ///   if let unwrapped = Shared(profile) {
  ///     unwrapped.withLock { $0.bio = "Hello" }   // writes the optional's wrapped value
  ///   }
  /// }
  /// ```
  ///
  /// If the optional later becomes `nil`, the derived value keeps reading the last value it had, and its writes
  /// change only that copy: they never bring the optional back from `nil`. Its sequences skip `nil` values.
  ///
  /// - Parameter base: A shared optional.
  public init?(_ base: Shared<Value?>) {
    guard let initial = base.wrappedValue else { return nil }
    self.init(reference: .derived(DerivedBox(DerivedUnwrapped(parent: base, initial: initial))))
  }
}

extension Shared {
  /// Registers the observer `makeObserver` builds from the value it starts from, read under the same lock that
  /// registers it; see ``SharedReadable/observe(startingFrom:)``.
  func observe(startingFrom makeObserver: StartingObserverMaker<Value>) -> ObserverToken {
    switch reference {
    case .box(let box):
      return box.observe(retaining: box, startingFrom: { current in makeObserver { current } })
    case .root(let root):
      return root.box.observe(retaining: root, startingFrom: { current in makeObserver { current } })
    case .derived(let derived):
      return derived.observe(startingFrom: makeObserver)
    }
  }
}
