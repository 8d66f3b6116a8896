#include "RayCastLidar.h"

#include "CarlaServerActor.h"
#include "CarlaServerGlue.h"

#include "Async/ParallelFor.h"
#include "Components/PrimitiveComponent.h"
#include "Engine/World.h"
#include "ProfilingDebugging/CpuProfilerTrace.h"

namespace
{
	/** Rays per ParallelFor task: enough work to pay for a task. */
	constexpr int32 RaysPerTask = 64;

	/** The trace channel the project named "SensorTrace" (see README.md:
	 *  a game trace channel every profile that should be seen blocks), or,
	 *  without one, WorldDynamic, which the stock profiles of bodies block
	 *  (Visibility is ignored by Pawn and CharacterMesh: no walkers). */
	ECollisionChannel FindSensorTraceChannel()
	{
		static const FName Wanted(TEXT("SensorTrace"));
		for (int32 Index = ECC_GameTraceChannel1; Index <= ECC_GameTraceChannel18; ++Index)
		{
			if (UCollisionProfile::Get()->ReturnChannelNameFromContainerIndex(Index) == Wanted)
			{
				return static_cast<ECollisionChannel>(Index);
			}
		}
		UE_LOG(LogCarlaServerGlue, Warning,
			TEXT("no trace channel named SensorTrace in DefaultEngine.ini: lidars trace WorldDynamic (see the plugin's README)"));
		return ECC_WorldDynamic;
	}
}

ARayCastLidar::ARayCastLidar()
{
	RootComponent = CreateDefaultSubobject<USceneComponent>(TEXT("LidarRoot"));
}

void ARayCastLidar::ApplyAttributes(const CarlaGlue::FAttributes& Attributes)
{
	Channels = static_cast<int32>(Attributes.Number("channels", Channels));
	Range = static_cast<float>(Attributes.Number("range", Range));
	PointsPerSecond = static_cast<int32>(Attributes.Number("points_per_second", PointsPerSecond));
	RotationFrequency = static_cast<float>(Attributes.Number("rotation_frequency", RotationFrequency));
	UpperFov = static_cast<float>(Attributes.Number("upper_fov", UpperFov));
	LowerFov = static_cast<float>(Attributes.Number("lower_fov", LowerFov));
}

uint32 ARayCastLidar::GetLegacyType() const
{
	return CARLA_SERVER_LIDAR_RAY_CAST;
}

const char* ARayCastLidar::GetBlueprintId() const
{
	return bSemantic ? "sensor.lidar.ray_cast_semantic" : "sensor.lidar.ray_cast";
}

void ARayCastLidar::GetSensorAttributes(TMap<FString, FString>& Attributes) const
{
	Attributes.Add(TEXT("channels"), FString::FromInt(Channels));
	Attributes.Add(TEXT("range"), FString::SanitizeFloat(Range));
	Attributes.Add(TEXT("points_per_second"), FString::FromInt(PointsPerSecond));
	Attributes.Add(TEXT("rotation_frequency"), FString::SanitizeFloat(RotationFrequency));
	Attributes.Add(TEXT("upper_fov"), FString::SanitizeFloat(UpperFov));
	Attributes.Add(TEXT("lower_fov"), FString::SanitizeFloat(LowerFov));
}

void ARayCastLidar::Tick(float DeltaSeconds)
{
	Super::Tick(DeltaSeconds);
	if (!IsWanted())
	{
		return; // nobody listens: nothing planned, nothing traced
	}
	const CarlaServerPtr Server = GetServer();
	const carla_planned_ray* Rays = nullptr;
	uint32 Count = 0;
	if (carla_lidar_plan(Server, SensorId, DeltaSeconds, &Rays, &Count) != CarlaGlue::Success || (Count > 0 && Rays == nullptr))
	{
		return;
	}
	TRACE_CPUPROFILER_EVENT_SCOPE(CarlaLidarTrace);
	const FTransform Sensor = GetActorTransform();
	const FVector Start = Sensor.GetLocation();
	const float RangeCm = Range * 100.0f;
	if (TraceChannel == ECC_MAX)
	{
		TraceChannel = FindSensorTraceChannel();
	}
	const ECollisionChannel Channel = TraceChannel;
	FCollisionQueryParams Params(FName(TEXT("CarlaLidar")), true, this);
	Params.AddIgnoredActor(GetOwner());
	Params.AddIgnoredActor(GetAttachParentActor());
	const UWorld* World = GetWorld();

	const int32 RayCount = static_cast<int32>(Count);
	Hits.Reset();
	Hits.AddZeroed(RayCount);
	HitComponents.Reset();
	HitComponents.AddZeroed(RayCount);
	carla_lidar_hit* Out = Hits.GetData();
	const UPrimitiveComponent** OutComponents = HitComponents.GetData();
	// Each task traces its own rays and writes only their slots; workers
	// touch no actor (in UE 5 FHitResult::GetActor may spawn one).
	ParallelFor((RayCount + RaysPerTask - 1) / RaysPerTask, [&](int32 Task)
		{
			const int32 End = RayCount < (Task + 1) * RaysPerTask ? RayCount : (Task + 1) * RaysPerTask;
			for (int32 Index = Task * RaysPerTask; Index < End; ++Index)
			{
				const carla_vector3d& Local = Rays[Index].direction;
				const FVector Direction = Sensor.TransformVectorNoScale(FVector(Local.x, Local.y, Local.z));
				carla_lidar_hit& Hit = Out[Index];
				Hit.ray_index = static_cast<uint32>(Index);
				FHitResult Result;
				if (!World->LineTraceSingleByChannel(Result, Start, Start + Direction * RangeCm, Channel, Params))
				{
					continue;
				}
				// Into the sensor frame, metres: the library works in sensor space.
				const UPrimitiveComponent* Component = Result.GetComponent();
				Hit.hit = 1;
				Hit.distance_m = static_cast<float>(Result.Distance * 0.01);
				Hit.point_sensor = CarlaGlue::ToMeters(Sensor.InverseTransformPosition(Result.ImpactPoint));
				Hit.normal_sensor = CarlaGlue::ToDirection(Sensor.InverseTransformVectorNoScale(Result.ImpactNormal));
				Hit.semantic_tag = Component != nullptr ? static_cast<uint32>(Component->CustomDepthStencilValue) : 0u;
				OutComponents[Index] = Component;
			}
		});
	// The ids clients know (0: not an actor they can see), on this thread;
	// neighbouring rays mostly hit the same component: one lookup for a run.
	const UPrimitiveComponent* Previous = nullptr;
	uint32 PreviousId = 0;
	for (int32 Index = 0; Index < RayCount; ++Index)
	{
		const UPrimitiveComponent* Component = OutComponents[Index];
		if (Component != Previous)
		{
			Previous = Component;
			PreviousId = Component != nullptr ? ServerActor->GetActorId(Component->GetOwner()) : 0u;
		}
		Out[Index].actor_id = PreviousId;
	}
	const carla_capture_context Capture = Context();
	carla_lidar_send_hits(Server, SensorId, &Capture, Out, Count);
}
