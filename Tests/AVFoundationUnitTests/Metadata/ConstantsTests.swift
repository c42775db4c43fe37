import AVFoundation
import Foundation
import Testing

/// The constants generated from Tools/Constants/constants.tsv: a few raw values of each type against
/// the values read from Apple's frameworks, and every identifier against the key it is made of.
@Suite("Constants")
struct ConstantsTests {
    @Test func rawValuesAreApples() {
        #expect(AVMetadataKeySpace.common.rawValue == "comn" && AVMetadataKeySpace.isoUserData.rawValue == "uiso")
        #expect(AVMetadataKeySpace.icy.rawValue == "icy" && AVMetadataKeySpace.hlsDateRange.rawValue == "lsdr")
        #expect(AVMetadataFormat.isoUserData.rawValue == "org.mp4ra" && AVMetadataFormat.hlsMetadata.rawValue == "com.apple.quicktime.HLS")
        #expect(AVMetadataFormat.unknown.rawValue == "public.unknown")
        #expect(AVMetadataIdentifier.quickTimeUserDataFullName.rawValue == "udta/%A9nam")
        #expect(AVMetadataIdentifier.identifier3GPUserDataTitle.rawValue == "uiso/titl")
        #expect(AVMetadataIdentifier.icyMetadataStreamTitle.rawValue == "icy/StreamTitle")
        #expect(AVMetadataIdentifier.isoUserDataCopyright.rawValue == "uiso/cprt")
        #expect(AVMetadataIdentifier.iTunesMetadataGrouping.rawValue == "itsk/grup", "Apple's grouping is `grup`, not the `©grp` atom")
        #expect(AVMetadataIdentifier.quickTimeMetadataCameraLensModel.rawValue == "mdta/com.apple.quicktime.camera.lens_model")
        #expect(AVMetadataKey.quickTimeUserDataKeyArranger.rawValue == "@arg", "Apple spells the © of an atom as @ in its keys")
        #expect(AVMetadataKey.metadata3GPUserDataKeyRecordingYear.rawValue == "yrrc")
        #expect(AVMetadataKey.icyMetadataKeyStreamURL.rawValue == "StreamUrl")
        #expect(AVMediaType.haptic.rawValue == "hapt" && AVMediaType.auxiliaryPicture.rawValue == "auxv")
        #expect(AVMediaType.depthData.rawValue == "dpth" && AVMediaType.muxed.rawValue == "muxx")
        #expect(AVMediaCharacteristic.visual.rawValue == "AVMediaCharacteristicVisual")
        #expect(AVMediaCharacteristic.tactileMinimal.rawValue == "public.haptics.minimal")
        #expect(AVMediaCharacteristic.carriesVideoStereoMetadata.rawValue == "com.apple.quicktime.video.stereo-metadata")
        #expect(AVFileType.mp4.rawValue == "public.mpeg-4" && AVFileType.AHAP.rawValue == "public.haptics-content")
        #expect(AVFileType.dcm.rawValue == "org.nema.dicom" && AVFileType.qta.rawValue == "com.apple.quicktime-audio")
        #expect(AVVideoCodecType.hevcWithAlpha.rawValue == "muxa" && AVVideoCodecType.appleProRes4444XQ.rawValue == "ap4x")
        #expect(AVVideoCodecType.proResRAW.rawValue == "aprn" && AVVideoCodecType.JPEGXL.rawValue == "jxlc")
    }

    @Test func everyIdentifierIsTheOneItsKeyMakes() {
        #expect(metadataConstantPairs.count > 270)
        for (identifier, key, keySpace) in metadataConstantPairs {
            #expect(AVMetadataItem.identifier(forKey: key.rawValue, keySpace: keySpace) == identifier, "\(key.rawValue) in \(keySpace.rawValue)")
            #expect(AVMetadataItem.keySpace(forIdentifier: identifier) == keySpace, "\(identifier.rawValue)")
        }
    }

    @Test func anAtKeyNamesTheCopyrightSignAtom() throws {
        #expect(AVMetadataItem.identifier(forKey: "©nam", keySpace: .iTunes) == AVMetadataItem.identifier(forKey: "@nam", keySpace: .iTunes))
        #expect((AVMetadataItem.key(forIdentifier: .quickTimeUserDataArranger) as? NSNumber)?.uint32Value == 0xA961_7267)
        #expect(AVMetadataItem.identifier(forKey: "@nam", keySpace: .quickTimeMetadata)?.rawValue == "mdta/%40nam",
                "outside the four-character-code key spaces an @ is itself")
        let item = AVMutableMetadataItem()
        item.identifier = .iTunesMetadataSongName
        let found = AVMetadataItem.metadataItems(from: [item], withKey: AVMetadataKey.iTunesMetadataKeySongName, keySpace: .iTunes)
        #expect(found.count == 1, "Apple's key constant finds the item of the ©nam atom")
        let made = AVMutableMetadataItem()
        made.keySpace = .quickTimeUserData
        made.key = AVMetadataKey.quickTimeUserDataKeyFullName.rawValue as NSString
        #expect(made.identifier == .quickTimeUserDataFullName && made.commonKey == .commonKeyTitle)
    }

    @Test func anAtKeyOfNoAppleConstantIsItsOwnAtom() {
        // iTunes writes atoms whose type starts with "@" (`@PST`, `@ppi`, `@pti`, `@sti`): only the "@"
        // of Apple's key constants stands for ©.
        for key in ["@PST", "@ppi", "@pti", "@sti"] {
            #expect(AVMetadataItem.identifier(forKey: key, keySpace: .iTunes)?.rawValue == "itsk/%40" + key.dropFirst(), "\(key)")
            #expect(AVMetadataItem.identifier(forKey: key, keySpace: .quickTimeUserData)?.rawValue == "udta/%40" + key.dropFirst(), "\(key)")
        }
        let item = AVMutableMetadataItem()
        item.keySpace = .iTunes
        item.key = "@PST" as NSString
        #expect(item.identifier?.rawValue == "itsk/%40PST")
        #expect(AVMetadataItem.metadataItems(from: [item], withKey: "@PST", keySpace: .iTunes).count == 1)
        #expect(AVMetadataItem.metadataItems(from: [item], withKey: "©PST", keySpace: .iTunes).isEmpty, "@PST is not the ©PST atom")
        #expect((AVMetadataItem.key(forIdentifier: AVMetadataIdentifier(rawValue: "itsk/%40PST")) as? NSNumber)?.uint32Value == 0x4050_5354)
    }
}
