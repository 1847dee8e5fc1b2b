package objects

import "fmt"

// addOthers adds the Route53, EC2 security group and instance, and S3 resources the snapshot wants.
func (s *Snapshot) addOthers(src AWSState, want func(string) bool) error {
	if want(AWSHostedZone) || want(AWSRecordSet) {
		s.addZones(src, want)
	}
	if want(AWSSecurityGroup) {
		for _, sg := range src.SecurityGroups() {
			s.addKeys(AWSSecurityGroup, &securityGroupView{SecurityGroup: sg}, "id\x00"+sg.ID, "name\x00"+sg.Name)
		}
	}
	if want(AWSEC2Instance) {
		for _, in := range src.Instances() {
			s.addKeys(AWSEC2Instance, &ec2InstanceView{Instance: in}, "id\x00"+in.ID, "name\x00"+in.PrivateIP)
		}
	}
	if want(AWSS3Bucket) {
		buckets, err := src.S3Buckets()
		if err != nil {
			return fmt.Errorf("listing S3 buckets: %w", err)
		}
		for _, b := range buckets {
			s.addKeys(AWSS3Bucket, &s3BucketView{S3Bucket: b}, "name\x00"+b.Name)
		}
	}
	return nil
}

// addZones adds hosted zones and their record sets, by zone ID and, where one zone has it (a public and a
// private zone may share one), by zone name.
func (s *Snapshot) addZones(src AWSState, want func(string) bool) {
	zones := src.HostedZones()
	names := map[string]int{}
	for _, z := range zones {
		names[z.Name]++
	}
	s.zoneIDs = make(map[string]string, 2*len(zones))
	for _, z := range zones {
		s.zoneIDs[z.ID] = z.ID
		if names[z.Name] == 1 {
			s.zoneIDs[z.Name] = z.ID
		}
	}
	for _, z := range zones {
		sets, err := src.RecordSets(z.ID)
		if err != nil {
			continue // deleted meanwhile
		}
		unique := names[z.Name] == 1
		if want(AWSHostedZone) {
			keys := []string{"id\x00" + z.ID}
			if unique {
				keys = append(keys, "name\x00"+z.Name)
			}
			s.addKeys(AWSHostedZone, &hostedZoneView{HostedZone: z, RecordSets: sets}, keys...)
		}
		if !want(AWSRecordSet) {
			continue
		}
		for _, rs := range sets {
			keys := []string{recordKeyOf(z.ID, rs)}
			if unique {
				keys = append(keys, recordKeyOf(z.Name, rs))
			}
			s.addKeys(AWSRecordSet, &recordSetView{RecordSet: rs, ZoneID: z.ID, ZoneName: z.Name}, keys...)
		}
	}
}
