#include "RayCastLidar.h"

#include "CarlaGlueUtils.h"
#include "CarlaServerActor.h"

#include "Components/PrimitiveComponent.h"
#include "Engine/World.h"

ARayCastLidar::ARayCastLidar()
{
	PrimaryActorTick.bCanEverTick = true;
	PrimaryActorTick.TickGroup = TG_PostPhysics;
	RootComponent = CreateDefaultSubobject<USceneComponent>(TEXT("LidarRoot"));
}

void ARayCastLidar::BeginPlay()
{
	Super::BeginPlay();
	if (ServerActor == nullptr)
	{
		ServerActor = ACarlaServerActor::Find(GetWorld());
	}
	if (ServerActor == nullptr)
	{
		return;
	}
	SensorId = ServerActor->CreateSensor(bSemantic ? "sensor.lidar.ray_cast_semantic" : "sensor.lidar.ray_cast",
		{{TEXT("channels"), FString::FromInt(Channels)}, {TEXT("range"), FString::SanitizeFloat(Range)},
			{TEXT("points_per_second"), FString::FromInt(PointsPerSecond)},
			{TEXT("rotation_frequency"), FString::SanitizeFloat(RotationFrequency)},
			{TEXT("upper_fov"), FString::SanitizeFloat(UpperFov)}, {TEXT("lower_fov"), FString::SanitizeFloat(LowerFov)}});
}

void ARayCastLidar::EndPlay(const EEndPlayReason::Type EndPlayReason)
{
	if (ServerActor != nullptr)
	{
		ServerActor->DestroySensor(SensorId);
	}
	SensorId = 0;
	Super::EndPlay(EndPlayReason);
}

void ARayCastLidar::Tick(float DeltaSeconds)
{
	Super::Tick(DeltaSeconds);
	const CarlaServerPtr Server = ServerActor != nullptr ? ServerActor->GetServer() : nullptr;
	const carla_planned_ray* Rays = nullptr;
	uint32 Count = 0;
	if (Server == nullptr || SensorId == 0 ||
		carla_lidar_plan(Server, SensorId, DeltaSeconds, &Rays, &Count) != CarlaGlue::Success)
	{
		return;
	}
	const FTransform Sensor = GetActorTransform();
	const FVector Start = Sensor.GetLocation();
	const float RangeCm = Range * 100.0f;
	FCollisionQueryParams Params(FName(TEXT("CarlaLidar")), true, this);
	Params.AddIgnoredActor(GetOwner());

	Hits.Reset();
	Hits.AddUninitialized(static_cast<int32>(Count));
	for (uint32 Index = 0; Index < Count; ++Index)
	{
		const carla_vector3d& Local = Rays[Index].direction;
		const FVector Direction = Sensor.TransformVectorNoScale(FVector(Local.x, Local.y, Local.z));
		FHitResult Hit;
		carla_lidar_hit& Out = Hits[static_cast<int32>(Index)];
		Out = carla_lidar_hit{};
		Out.ray_index = Index;
		if (!GetWorld()->LineTraceSingleByChannel(Hit, Start, Start + Direction * RangeCm, ECC_Visibility, Params))
		{
			continue;
		}
		// Into the sensor frame, metres: the library works in sensor space.
		const AActor* HitActor = Hit.GetActor();
		const UPrimitiveComponent* HitComponent = Hit.GetComponent();
		Out.hit = 1;
		Out.distance_m = static_cast<float>(Hit.Distance * 0.01);
		Out.point_sensor = CarlaGlue::ToMeters(Sensor.InverseTransformPosition(Hit.ImpactPoint));
		Out.normal_sensor = CarlaGlue::ToDirection(Sensor.InverseTransformVectorNoScale(Hit.ImpactNormal));
		Out.actor_id = HitActor != nullptr ? HitActor->GetUniqueID() : 0;
		Out.semantic_tag = HitComponent != nullptr ? static_cast<uint32>(HitComponent->CustomDepthStencilValue) : 0;
	}
	const carla_capture_context Context = CarlaGlue::CaptureContext(*this);
	carla_lidar_send_hits(Server, SensorId, &Context, Hits.GetData(), static_cast<uint32>(Hits.Num()));
}
