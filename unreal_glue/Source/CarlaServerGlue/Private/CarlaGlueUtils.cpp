#include "CarlaGlueUtils.h"

#include "CoreGlobals.h"
#include "Engine/World.h"
#include "GameFramework/Actor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace CarlaGlue
{
	carla_vector3d ToMeters(const FVector& Centimetres)
	{
		return {static_cast<float>(Centimetres.X * 0.01), static_cast<float>(Centimetres.Y * 0.01),
			static_cast<float>(Centimetres.Z * 0.01)};
	}

	FVector ToCentimetres(const carla_vector3d& Metres)
	{
		return FVector(Metres.x * 100.0f, Metres.y * 100.0f, Metres.z * 100.0f);
	}

	carla_vector3d ToDirection(const FVector& Direction)
	{
		return {static_cast<float>(Direction.X), static_cast<float>(Direction.Y), static_cast<float>(Direction.Z)};
	}

	carla_actor_transform ToActorTransform(const FTransform& Transform)
	{
		const FRotator Rotation = Transform.Rotator();
		carla_actor_transform Result;
		Result.location = ToMeters(Transform.GetLocation());
		Result.rotation = {static_cast<float>(Rotation.Pitch), static_cast<float>(Rotation.Yaw),
			static_cast<float>(Rotation.Roll)};
		return Result;
	}

	carla_transform ToLegacyTransform(const FTransform& Transform)
	{
		const carla_actor_transform Actor = ToActorTransform(Transform);
		carla_transform Result;
		Result.location = Actor.location;
		Result.orientation = ToDirection(Transform.Rotator().Vector());
		Result.rotation = Actor.rotation;
		return Result;
	}

	FTransform FromActorTransform(const carla_actor_transform& Transform)
	{
		return FromPose(Transform.location, Transform.rotation);
	}

	FTransform FromPose(const carla_vector3d& Position, const carla_rotation3d& Rotation)
	{
		return FTransform(FRotator(Rotation.pitch, Rotation.yaw, Rotation.roll), ToCentimetres(Position));
	}

	const char* FAttributes::Find(const char* Key) const
	{
		for (uint32 Index = 0; Keys != nullptr && Values != nullptr && Index < Count; ++Index)
		{
			if (Keys[Index] != nullptr && Values[Index] != nullptr && std::strcmp(Keys[Index], Key) == 0)
			{
				return Values[Index];
			}
		}
		return nullptr;
	}

	double FAttributes::Number(const char* Key, double Default) const
	{
		const char* Text = Find(Key);
		if (Text == nullptr)
		{
			return Default;
		}
		char* End = nullptr;
		const double Value = std::strtod(Text, &End);
		return End != Text && std::isfinite(Value) ? Value : Default;
	}

	carla_capture_context CaptureContext(const AActor& Sensor)
	{
		const UWorld* World = Sensor.GetWorld();
		carla_capture_context Context;
		Context.frame = GFrameCounter;
		Context.timestamp = World != nullptr ? World->GetTimeSeconds() : 0.0;
		Context.transform = ToActorTransform(Sensor.GetActorTransform());
		return Context;
	}

	void FUtf8Strings::Add(const FString& Text)
	{
		const FTCHARToUTF8 Utf8(*Text);
		Offsets.Add(Bytes.Num());
		// Get() is ANSICHAR in UE4 and some UE5 releases, UTF8CHAR in others.
		Bytes.Append(reinterpret_cast<const ANSICHAR*>(Utf8.Get()), Utf8.Length() + 1);
	}

	const TArray<const char*>& FUtf8Strings::Pointers()
	{
		Cached.Reset();
		for (const int32 Offset : Offsets)
		{
			Cached.Add(Bytes.GetData() + Offset);
		}
		return Cached;
	}
}
