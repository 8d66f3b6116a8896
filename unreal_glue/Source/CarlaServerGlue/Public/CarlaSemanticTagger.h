// The semantic tagger: which CARLA label an actor has, and the custom-depth
// stencil values that carry it to the lidar and the semantic cameras.
//
// The rule (documented in unreal_glue/README.md): an actor is labelled by an
// actor tag `Carla.<Label>` (e.g. `Carla.Vehicles`, `Carla.Roads`); TagActor
// writes the label's number into every primitive component's stencil. CARLA
// derives labels from mesh folders instead (its ATagger); a plugin without
// content has no such folders, so the level says it with actor tags.
#pragma once

#include "CoreMinimal.h"

class AActor;

namespace CarlaGlue
{
	/** CARLA's labels: 0.8.4's thirteen plus the finer 0.9.16 ones. */
	enum class ELabel : uint8
	{
		None,
		Buildings,
		Fences,
		Other,
		Pedestrians,
		Poles,
		RoadLines,
		Roads,
		Sidewalks,
		Vegetation,
		Vehicles,
		Walls,
		TrafficSigns,
		TrafficLights,
		Terrain,
		Sky,
		Riders,
		Trucks,
		Buses,
		Motorcycles,
		Bicycles,
		Count
	};

	/** The label of Actor's `Carla.<Label>` tag (None without one). */
	CARLASERVERGLUE_API ELabel LabelOf(const AActor* Actor);

	/** The stencil value of Label: CARLA 0.9.16's numbering (1 Roads, 4 Wall,
	 *  12 Pedestrian, 14 Car, ...) or, with bLegacy, 0.8.4's (7 Roads, 10
	 *  Vehicles, 11 Walls, ...). */
	CARLASERVERGLUE_API uint8 TagOf(ELabel Label, bool bLegacy);

	/** Writes Actor's label into its primitive components' stencil (and
	 *  turns custom depth on); untagged actors are left as they are. */
	CARLASERVERGLUE_API void TagActor(AActor& Actor, bool bLegacy);

	/** Vehicles (cars, trucks, buses, two-wheelers) and walkers (pedestrians,
	 *  riders): what safe distance reports and 0.8 agents list. */
	CARLASERVERGLUE_API bool IsVehicle(const AActor* Actor);
	CARLASERVERGLUE_API bool IsWalker(const AActor* Actor);
}
