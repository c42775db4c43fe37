/// Lets compositions and their tracks declare the accessors Apple's do with their own types and without
/// deprecation (`AVComposition.tracks` is `[AVCompositionTrack]` and synchronous), which Swift's
/// overriding does not allow: ``AVAsset`` and ``AVAssetTrack`` declare theirs in extensions of this
/// protocol, where a subclass's own declarations take precedence. Not for direct use.
public protocol _AVAssetAccessors: AnyObject {}
