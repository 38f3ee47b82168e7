/// The network a run follows: its store's gate and its mode, settled when the run is started; `nil` (no value of
/// this type) for a run that ignores the network.
@usableFromInline
struct RunNetwork: Sendable {
  let gate: NetworkGate
  let mode: NetworkMode

  /// The network of a run on `gate`, of `mode` (`nil`: the gate's default), or `nil` when it ignores the network.
  init?(gate: NetworkGate, mode: NetworkMode?) {
    guard let mode = gate.mode(for: mode) else { return nil }
    self.gate = gate
    self.mode = mode
  }

  /// The network of a plain run (not a mutation) with `options`: the current registry's, if the options name a
  /// mode; otherwise none, as before network modes existed.
  @inlinable
  init?(plainRun options: OperationOptions) {
    guard let mode = options.networkMode else { return nil }
    self.init(current: mode)
  }

  @usableFromInline
  init?(current mode: NetworkMode) {
    self.init(gate: SharedRegistry.current.queries.services.network, mode: mode)
  }

  /// Whether a run with no retries starts its one attempt at once, asking nothing more of the gate: an
  /// ``NetworkMode/offlineFirst`` run always does, an ``NetworkMode/online`` one while the device is online.
  @usableFromInline
  var startsWithoutWaiting: Bool {
    mode == .offlineFirst || gate.isOnlineNow
  }
}
