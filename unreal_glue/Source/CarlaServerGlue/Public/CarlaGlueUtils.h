// Conversions between Unreal's types (centimetres, FTransform, FString) and
// the C API's structs (metres, degrees, UTF-8), shared by the actors. Unit
// changes only: every model lives in the library.
#pragma once

#include "CoreMinimal.h"
#include "carla/carla_server.h"

class AActor;

namespace CarlaGlue
{
	/** Return codes of the C API. The header declares 0 and 11 as exported
	 *  data symbols (as 0.8.4 did), but a delay-loaded DLL cannot provide
	 *  data (MSVC LNK1194), so the glue uses the values. */
	constexpr int32 Success = 0;
	constexpr int32 TryAgain = 11;

	/** A location or extent, centimetres → metres. */
	CARLASERVERGLUE_API carla_vector3d ToMeters(const FVector& Centimetres);

	/** A location or extent, metres → centimetres. */
	CARLASERVERGLUE_API FVector ToCentimetres(const carla_vector3d& Metres);

	/** A direction or normal (no unit). */
	CARLASERVERGLUE_API carla_vector3d ToDirection(const FVector& Direction);

	/** Location in metres, rotation in degrees (the 0.9 header's transform). */
	CARLASERVERGLUE_API carla_actor_transform ToActorTransform(const FTransform& Transform);

	/** The 0.8 transform: location in metres, unit forward vector, rotation. */
	CARLASERVERGLUE_API carla_transform ToLegacyTransform(const FTransform& Transform);

	/** A 0.9 transform (metres, degrees) → Unreal's (centimetres). */
	CARLASERVERGLUE_API FTransform FromActorTransform(const carla_actor_transform& Transform);

	/** A pose of the 0.8 settings (metres, degrees) → Unreal's. */
	CARLASERVERGLUE_API FTransform FromPose(const carla_vector3d& Position, const carla_rotation3d& Rotation);

	/** A 0.9 client's attributes as the library hands them over (borrowed
	 *  for one request). Values are text; numbers are parsed here. */
	struct CARLASERVERGLUE_API FAttributes
	{
		const char* const* Keys = nullptr;
		const char* const* Values = nullptr;
		uint32 Count = 0;

		/** The value of Key, or nullptr. */
		const char* Find(const char* Key) const;
		/** Key as a number, or Default when absent or not a number. */
		double Number(const char* Key, double Default) const;
	};

	/** When and where Sensor captures now: GFrameCounter, the world's time
	 *  in seconds and the sensor's world transform. Game thread. */
	CARLASERVERGLUE_API carla_capture_context CaptureContext(const AActor& Sensor);

	/** NUL-terminated UTF-8 copies of strings, kept alive for one C call. */
	class CARLASERVERGLUE_API FUtf8Strings
	{
	public:
		void Add(const FString& Text);
		int32 Num() const { return Offsets.Num(); }
		/** One pointer per string added, valid until the next Add. */
		const TArray<const char*>& Pointers();

	private:
		TArray<ANSICHAR> Bytes;
		TArray<int32> Offsets;
		TArray<const char*> Cached;
	};
}
